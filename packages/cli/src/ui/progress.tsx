import type { ScanEvent } from '@svc/core';
import { render } from 'ink';
import type { CommandIo } from '../terminal.js';
import { wantsColor } from '../terminal.js';
import { createPlainProgress } from './plain.js';
import { initialProgress, reduceProgress } from './progress-state.js';
import { ScanView } from './ScanView.js';

const PROGRESS_RENDER_INTERVAL_MS = 50;

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
 * A terminal gets the Ink view; anything else gets one plain line per event.
 */
export function startProgress(inputs: number, options: ProgressOptions, io: CommandIo): Progress {
  if (options.quiet) return { onEvent: () => {}, stop: () => {} };
  if (io.stderr.isTTY !== true) {
    return { onEvent: createPlainProgress((line) => io.stderr.write(line)), stop: () => {} };
  }
  const color = wantsColor(io.stderr, options.color, io.env);
  let state = initialProgress;
  const view = () => <ScanView state={state} inputs={inputs} color={color} />;
  const instance = render(view(), {
    stdout: io.stderr as NodeJS.WriteStream,
    stderr: io.stderr as NodeJS.WriteStream,
    // The entry point owns Ctrl-C: it aborts the scan and cleans up temp dirs.
    exitOnCtrlC: false,
    patchConsole: false,
  });
  let lastRender = 0;
  return {
    onEvent(event) {
      state = reduceProgress(state, event);
      // A scan emits a progress event per file; re-rendering for each would cost more than the scan step itself.
      const now = performance.now();
      if (event.type === 'progress' && now - lastRender < PROGRESS_RENDER_INTERVAL_MS) return;
      lastRender = now;
      instance.rerender(view());
    },
    stop() {
      instance.rerender(view());
      instance.unmount();
    },
  };
}

