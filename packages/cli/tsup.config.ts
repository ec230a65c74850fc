import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  sourcemap: true,
  clean: true,
  banner: { js: '#!/usr/bin/env node' },
  // @svc/core and the npm dependencies stay external: they resolve from node_modules at run time.
});
