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
  // @svc/core is bundled in, so the published package installs on its own: its third-party dependencies are listed
  // in this package's dependencies (packaging.test.ts keeps the two lists equal) and stay external.
  noExternal: ['@svc/core'],
});
