import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
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
