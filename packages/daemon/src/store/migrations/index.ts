import init from './0001_init.js';
import scans from './0002_scans.js';
import teams from './0003_teams.js';
import billing from './0004_billing.js';
import scanCredentials from './0005_scan_credentials.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** In order; `version` is the file's number and what schema_migrations records. */
export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'init', sql: init },
  { version: 2, name: 'scans', sql: scans },
  { version: 3, name: 'teams', sql: teams },
  { version: 4, name: 'billing', sql: billing },
  { version: 5, name: 'scan_credentials', sql: scanCredentials },
];
