import { defineConfig } from 'tsup';

export default defineConfig({
  // scan-worker: the entry of the target pool's worker threads, beside index.js (scan/target-pool.ts).
  entry: { index: 'src/index.ts', 'scan-worker': 'src/scan-worker.ts' },
  dts: { entry: 'src/index.ts' },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  sourcemap: true,
  clean: true,
});
