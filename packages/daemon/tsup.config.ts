import { defineConfig } from 'tsup';

export default defineConfig({
  // Named entries keep dist flat: the scan pool loads its worker as ./scan-worker.js beside the bundle.
  entry: { index: 'src/index.ts', main: 'src/main.ts', 'scan-worker': 'src/jobs/scan-worker.ts' },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  dts: { entry: 'src/index.ts' },
  sourcemap: true,
  clean: true,
  // @svc/core, better-sqlite3 (native) and the npm dependencies stay external: they resolve from node_modules at run time.
});
