import { SEVERITIES, type Severity } from '../../scan/model.js';

/** The most severe of some severities (SEVERITIES runs from critical down). */
export function worstSeverity(severities: readonly Severity[]): Severity {
  return severities.reduce((worst, severity) => (SEVERITIES.indexOf(severity) < SEVERITIES.indexOf(worst) ? severity : worst), 'info');
}
