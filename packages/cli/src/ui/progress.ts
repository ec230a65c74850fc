import type { ScanEvent } from '@svc/core';
import type { CommandIo } from '../terminal.js';
import { wantsColor } from '../terminal.js';
import { createPlainProgress } from './plain.js';

export interface ProgressOptions {
  quiet?: boolean;
  color: boolean;
}

export interface Progress {
  onEvent(event: ScanEvent): void;
  /** Stops live rendering; the last frame stays on screen. */
  stop(): void;
}

/**
 * Progress goes to stderr so stdout carries only the report (`--format json > out.json` stays valid JSON).
 * A terminal gets the Ink view; anything else gets one plain line per event. Ink (and React) load only for the
 * terminal view: importing them costs about half a second, which `--help`, CI runs and pipes should not pay.
 */
export async function startProgress(inputs: number, options: ProgressOptions, io: CommandIo): Promise<Progress> {
  if (options.quiet) return { onEvent: () => {}, stop: () => {} };
  if (io.stderr.isTTY !== true) {
    return { onEvent: createPlainProgress((line) => io.stderr.write(line)), stop: () => {} };
  }
  const { startLiveProgress } = await import('./live-progress.js');
  return startLiveProgress(inputs, wantsColor(io.stderr, options.color, io.env), io);
}
