/**
 * The exit codes `svc` promises scripts (docs/cli.md): see DESIGN.md convention 7. This module imports nothing, so
 * the entry point can report a crash with the right code even when a dependency fails to load.
 */
export const EXIT = {
  clean: 0,
  findings: 1,
  /** Usage error, a target that could not be (fully) scanned, or any other runtime failure. */
  error: 2,
  /** 128 + SIGINT, as shells report a Ctrl-C. */
  interrupted: 130,
} as const;

// A type only: this module must not load @svc/core at run time (see above).
export type { FailOnLevel as FailOn } from '@svc/core';
