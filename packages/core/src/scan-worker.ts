// The entry of a target-pool worker thread (scan/target-pool.ts). Bundles that run pools build it as
// dist/scan-worker.js beside their main file: core's own build, and the CLI's.
import { serveTargetScans } from './scan/target-worker.js';

serveTargetScans();
