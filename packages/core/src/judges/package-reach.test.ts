import { describe, expect, it } from 'vitest';
import type { Manifest } from '../scan/model.js';
import { packageReach } from './package-reach.js';
import { sourceFile } from './test-builders.js';

function manifest(data: Record<string, unknown>, path = 'package.json'): Manifest {
  return { kind: 'package.json', path, data };
}

/** A compiled package: a bin that imports the server, which imports its tools; an examples folder beside them. */
const files = [
  sourceFile('package.json', '{}', 'manifest'),
  sourceFile('dist/cli.js', "#!/usr/bin/env node\nimport { start } from './server.js';\nawait start();\n"),
  sourceFile('dist/server.js', "import { tools } from './tools/index.js';\nexport async function start() { return tools; }\n"),
  sourceFile('dist/tools/index.js', "const search = require('./search');\nmodule.exports = { tools: [search] };\n"),
  sourceFile('dist/tools/search.js', 'module.exports = { name: "search" };\n'),
  sourceFile('dist/examples/http.js', "import { start } from '../server.js';\nimport express from 'express';\nexpress().listen(3000);\n"),
  sourceFile('dist/examples/README.md', 'Run `node dist/examples/http.js`.\n', 'other'),
];
const bin = manifest({ name: 'mcp-search', bin: { 'mcp-search': 'dist/cli.js' } });

describe('packageReach', () => {
  it('follows imports and requires from the entry points, and gives the chain', () => {
    expect(packageReach('dist/tools/search.js', files, [bin])).toEqual({
      state: 'reached',
      pkg: 'mcp-search',
      chain: ['dist/cli.js', 'dist/server.js', 'dist/tools/index.js', 'dist/tools/search.js'],
    });
  });

  it('shows a module nothing loads as unreached, naming the entries it checked', () => {
    expect(packageReach('dist/examples/http.js', files, [bin])).toEqual({ state: 'unreached', pkg: 'mcp-search', entries: ['dist/cli.js'] });
  });

  it('counts main, exports conditions and install scripts as entries, and ignores type declarations', () => {
    const data = {
      name: 'mcp-search',
      exports: { '.': { types: './dist/index.d.ts', import: './dist/server.js' } },
      scripts: { postinstall: 'node dist/examples/http.js --setup', test: 'vitest run' },
    };
    expect(packageReach('dist/examples/http.js', files, [manifest(data)])).toMatchObject({ state: 'reached', chain: ['dist/examples/http.js'] });
    expect(packageReach('dist/tools/search.js', files, [manifest({ name: 'mcp-search', main: 'dist/server' })])).toMatchObject({ state: 'reached' });
  });

  it('treats every file under a subpath pattern export as published', () => {
    const data = { name: 'sdk', exports: { '.': './dist/server.js', './*': './dist/*' } };
    expect(packageReach('dist/examples/http.js', files, [manifest(data)])).toMatchObject({ state: 'reached', chain: ['dist/examples/http.js'] });
  });

  it('follows a path built from literal parts, as a launcher spawning its server does', () => {
    const launcher = [
      ...files,
      sourceFile('bin/launch.js', "const { resolve } = require('node:path');\nspawn(process.execPath, [resolve(__dirname, '..', 'dist', 'examples', 'http.js')]);\n"),
    ];
    expect(packageReach('dist/examples/http.js', launcher, [manifest({ name: 'mcp-search', bin: 'bin/launch.js' })])).toMatchObject({
      state: 'reached',
      chain: ['bin/launch.js', 'dist/examples/http.js'],
    });
  });

  it('cannot rule a file out when a reached module loads something by a computed name', () => {
    const plugins = files.map((file) =>
      file.path === 'dist/server.js' ? sourceFile(file.path, `${file.text}for (const name of names) await import(\`./plugins/\${name}.js\`);\n`) : file,
    );
    expect(packageReach('dist/examples/http.js', plugins, [bin])).toMatchObject({ state: 'unknown', why: expect.stringMatching(/dist\/server\.js loads a module by a computed name/) });
  });

  it('cannot rule a file out when a reached module was not read (over the size limit)', () => {
    const unread = files.map((file) => (file.path === 'dist/server.js' ? { ...file, text: undefined } : file));
    expect(packageReach('dist/examples/http.js', unread, [bin])).toMatchObject({ state: 'unknown', why: 'dist/server.js was not read, so what it loads is unknown' });
  });

  it('counts modules that a container, registry entry or shell script starts as entries', () => {
    const launchers = [
      ...files,
      sourceFile('Dockerfile', 'FROM node:22-slim\nCOPY dist ./dist\nCMD ["node", "dist/examples/http.js"]\n', 'other'),
    ];
    expect(packageReach('dist/examples/http.js', launchers, [bin])).toMatchObject({ state: 'reached', chain: ['dist/examples/http.js'] });
    // A bin that is a shell script names the module it starts without quotes around the path alone.
    const shellBin = [...files, sourceFile('bin/mcp-search', '#!/bin/sh\nexec node "$(dirname "$0")/../dist/examples/http.js" "$@"\n', 'other')];
    expect(packageReach('dist/examples/http.js', shellBin, [manifest({ name: 'mcp-search', bin: 'bin/mcp-search' })])).toMatchObject({ state: 'reached' });
    // A page the package serves runs the scripts it names in the browser.
    const page = [...files, sourceFile('dist/public/index.html', '<script type="module" src="/assets/app-4f2a.js"></script>\n', 'other'), sourceFile('dist/public/assets/app-4f2a.js', 'fetch(location.hash.slice(1));\n')];
    expect(packageReach('dist/public/assets/app-4f2a.js', page, [bin])).toMatchObject({ state: 'reached' });
    // Documentation that tells a reader how to run an example does not make the package run it.
    expect(packageReach('dist/examples/http.js', files, [bin])).toMatchObject({ state: 'unreached' });
  });

  it('uses the package.json that names the package, not a nested module-format marker', () => {
    const nested = manifest({ type: 'module' }, 'dist/package.json');
    expect(packageReach('dist/examples/http.js', files, [bin, nested])).toMatchObject({ state: 'unreached' });
  });

  it('maps the build output a TypeScript checkout names back to its sources', () => {
    const checkout = [
      sourceFile('src/index.ts', "import { run } from './tools/run.js';\nrun();\n"),
      sourceFile('src/tools/run.ts', 'export function run() {}\n'),
      sourceFile('src/examples/demo.ts', "import { run } from '../tools/run.js';\nrun();\n"),
    ];
    const data = manifest({ name: 'ts-server', main: 'dist/index.js' });
    expect(packageReach('src/tools/run.ts', checkout, [data])).toMatchObject({ state: 'reached', chain: ['src/index.ts', 'src/tools/run.ts'] });
    expect(packageReach('src/examples/demo.ts', checkout, [data])).toMatchObject({ state: 'unreached' });
    // With the build output present too, the sources it was built from count as what runs.
    const built = [...checkout, sourceFile('dist/index.js', "import { run } from './tools/run.js';\nrun();\n", 'other'), sourceFile('dist/tools/run.js', 'export function run() {}\n', 'other')];
    expect(packageReach('src/tools/run.ts', built, [data])).toMatchObject({ state: 'reached', chain: ['dist/index.js', 'dist/tools/run.js', 'src/tools/run.ts'] });
    expect(packageReach('src/examples/demo.ts', built, [data])).toMatchObject({ state: 'unreached' });
    // Output that is named but neither present nor mappable: what it would load is unknown.
    expect(packageReach('src/examples/demo.ts', checkout, [manifest({ name: 'ts-server', main: 'build/cli.js' })])).toMatchObject({ state: 'unknown' });
  });

  it('ignores an entry a JavaScript package names but does not ship, and is unknown when none is left', () => {
    const broken = manifest({ name: 'mcp-search', main: 'dist/missing.js', bin: 'dist/cli.js' });
    expect(packageReach('dist/examples/http.js', files, [broken])).toMatchObject({ state: 'unreached', entries: ['dist/cli.js'] });
    expect(packageReach('dist/examples/http.js', files, [manifest({ name: 'mcp-search', main: 'dist/missing.js' })])).toMatchObject({ state: 'unknown' });
  });

  it('reads a large inlined asset in linear time', () => {
    // A megabyte-long run of path characters (base64 wasm in a web bundle) once made the file-name scan quadratic.
    const blob = 'A'.repeat(1_000_000);
    const bundled = [...files.filter((file) => file.path !== 'dist/server.js'), sourceFile('dist/server.js', `const wasm = "${blob}";\nconst more = ${blob}.js;\n`)];
    const started = performance.now();
    expect(packageReach('dist/examples/http.js', bundled, [bin])).toMatchObject({ state: 'unreached' });
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('is unknown without a manifest or for files that are not modules', () => {
    expect(packageReach('dist/examples/http.js', files, [])).toMatchObject({ state: 'unknown', why: expect.stringMatching(/no package\.json/) });
    expect(packageReach('dist/examples/http.js', files, undefined)).toMatchObject({ state: 'unknown' });
    expect(packageReach('dist/examples/README.md', files, [bin])).toMatchObject({ state: 'unknown' });
    expect(packageReach('server.py', [sourceFile('server.py', 'import os\n')], [bin])).toMatchObject({ state: 'unknown' });
  });
});
