/** The version reports and SARIF name; version.test.ts keeps it equal to package.json. */
export const SVC_VERSION = '0.1.0';
