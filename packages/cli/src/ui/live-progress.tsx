import { render } from 'ink';
import type { CommandIo } from '../terminal.js';
import type { Progress } from './progress.js';
import { initialProgress, reduceProgress } from './progress-state.js';
import { ScanView } from './ScanView.js';

const PROGRESS_RENDER_INTERVAL_MS = 50;

/** The Ink live view on a terminal (stderr, so stdout carries only the report). */
export function startLiveProgress(inputs: number, color: boolean, io: CommandIo): Progress {
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
