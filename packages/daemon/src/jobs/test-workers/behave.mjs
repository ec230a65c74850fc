// A stand-in scan worker for pool tests: job.input says how to misbehave. Every case first leaves a file in the
// job's temp dir, so the tests can see the pool remove it however the worker ended.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';

writeFileSync(path.join(workerData.tempDir, 'left-behind.txt'), 'scan data');
// `npm:sleep-2000` works too, so daemon tests can pass these through the submit route's input check.
const [action, argument] = workerData.input.replace(/^npm:/, '').split(/[:-]/);
const run = { schemaVersion: '1.0.0', generator: { name: 'svc', version: '0.0.0' }, reports: [], errors: [{ input: workerData.input, message: 'fake' }] };

if (action === 'sleep') {
  parentPort.postMessage({ type: 'event', event: { type: 'stage', target: workerData.input, stage: 'fetch' } });
  setTimeout(() => parentPort.postMessage({ type: 'result', run }), Number(argument));
} else if (action === 'loop') {
  for (;;) {
    // Busy forever: only terminate() ends this.
  }
} else if (action === 'throw') {
  throw new Error('boom at /secret/path');
} else if (action === 'exit') {
  process.exit(1);
} else if (action === 'silent') {
  // Ends cleanly without posting a result.
} else if (action === 'oom') {
  const hog = [];
  for (;;) hog.push(new Array(100_000).fill(Math.random()));
} else {
  parentPort.postMessage({ type: 'result', run });
}
