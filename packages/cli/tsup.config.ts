import { defineConfig } from 'tsup';

export default defineConfig({
  // Named entries keep dist flat: `svc scan` starts its worker threads from ./scan-worker.js beside the bundle.
  entry: { index: 'src/index.ts', 'scan-worker': '../core/src/scan-worker.ts' },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  sourcemap: true,
  clean: true,
  // @svc/core is bundled in, so the published package installs on its own: its third-party dependencies are listed
  // in this package's dependencies (packaging.test.ts keeps the two lists equal) and stay external.
  noExternal: ['@svc/core'],
  banner: { js: '#!/usr/bin/env node' },
});
