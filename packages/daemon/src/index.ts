// svcd lands with the daemon issue; this package exists so the workspace layout of DESIGN.md is complete.
export const DAEMON_PLACEHOLDER_VERSION = '0.1.0';
