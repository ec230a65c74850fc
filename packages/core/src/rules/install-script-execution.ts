import { posix } from 'node:path';
import { createRule } from './create-rule.js';
import type { Manifest, Severity, SourceFile } from '../scan/model.js';
import { INSTALL_HOOKS } from './support/install-hooks.js';
import { clip, positionAt } from './support/text-patterns.js';


const FETCH = /\b(?:curl|wget|Invoke-WebRequest|Invoke-RestMethod|iwr|irm|certutil\s+-urlcache|bitsadmin)\b|\bfetch\(|\brequire\(\s*['"](?:node:)?(?:https?|net|dgram)['"]\s*\)|\burllib\b|\burlopen\b/i;
const PIPE_TO_SHELL = /\|\s*(?:sudo\s+)?(?:sh|bash|zsh|dash|ksh|node|python3?|perl|ruby|iex|Invoke-Expression|powershell|pwsh)\b|\b(?:iex|Invoke-Expression)\s*\(|\b(?:sh|bash)\s+-c\s+["']?\$\(\s*(?:curl|wget)|\b(?:bash|sh)\s+<\(\s*(?:curl|wget)/i;
const DECODE = /\bbase64\s+(?:-d|--decode|-D)\b|\bBuffer\.from\([^)]*['"]base64['"]|\batob\(|FromBase64String|\bb64decode\b|\bcertutil\s+-decode\b/i;
const INLINE_CODE = /\b(?:node|nodejs|bun|deno)\s+(?:-e|--eval|-p|--print)\b|\bpython3?\s+-c\b|\bperl\s+-e\b|\bruby\s+-e\b/i;

/** In a script file: reaching the network and running or evaluating something, or shipping data out. */
const FILE_NETWORK =
  /\brequire\(\s*['"](?:node:)?(?:https?|net|dgram|tls)['"]\s*\)|\bfrom\s+['"](?:node:)?(?:https?|net|dgram|tls)['"]|\bfetch\(|\baxios\b|\bundici\b|\bXMLHttpRequest\b|\bdns\.(?:resolve|lookup)|\burllib\b|\brequests\.(?:get|post)|\bsocket\.socket\b|\b(?:curl|wget)\s/;
const FILE_EXEC =
  /\bchild_process\b|\bexecSync\b|\bspawnSync\b|(?<![.\w])exec(?:File)?\(|\bspawn\(|\beval\(|\bnew\s+Function\(|\bvm\.run|\bsubprocess\b|\bos\.(?:system|popen)\(|\|\s*(?:sh|bash)\b/;
// The whole environment (not one variable, which install scripts read for npm_config_* and CI detection) or a
// credential file.
const FILE_SECRETS = /\bprocess\.env\b(?!\s*(?:\.|\[|\?\.))|\bos\.environ\b(?!\s*(?:\[|\.get\b))|\.ssh\b|\.aws\b|\.npmrc\b|\bid_rsa\b|['"`/\\]\.env\b/;

interface ScriptVerdict {
  severity: Severity;
  reasons: string[];
}

function judgeCommand(command: string): ScriptVerdict | undefined {
  const reasons: string[] = [];
  let severity: Severity | undefined;
  // A URL alone is often just a message ("see https://…"); it counts when inline code is there to use it.
  const fetches = FETCH.test(command) || (INLINE_CODE.test(command) && /\bhttps?:\/\//.test(command));
  if (fetches && PIPE_TO_SHELL.test(command)) {
    reasons.push('downloads code and pipes it to an interpreter');
    severity = 'critical';
  } else if (DECODE.test(command)) {
    reasons.push('decodes a base64 payload');
    severity = PIPE_TO_SHELL.test(command) || INLINE_CODE.test(command) ? 'critical' : 'high';
  } else if (INLINE_CODE.test(command) && (fetches || /child_process|exec|eval|spawn|subprocess|os\.system/.test(command))) {
    reasons.push('runs inline code that reaches the network or starts processes');
    severity = 'high';
  } else if (fetches) {
    reasons.push('downloads from the network');
    severity = 'high';
  }
  return severity ? { severity, reasons } : undefined;
}

/** Script files a lifecycle command runs: `node scripts/x.js`, `sh ./install.sh`, `./setup.sh`, `python x.py`. */
function scriptFilesOf(command: string): string[] {
  const files: string[] = [];
  for (const match of command.matchAll(/(?:^|&&|\|\||;|\|)\s*(?:(?:node|nodejs|bun|deno\s+run(?:\s+-\S+)*|tsx|ts-node|sh|bash|zsh|python3?|perl|ruby)\s+)?((?:\.{0,2}\/)?[\w@./-]+\.(?:c?js|mjs|ts|cts|mts|sh|py|pl|rb))\b/g)) {
    files.push(match[1]!);
  }
  return files;
}

/** An exec/eval whose first argument is not a literal: what runs is decided at run time. */
const COMPUTED_EXEC = /(?<![.\w])(?:exec|execSync|spawn|spawnSync|execFile|execFileSync|eval|Function|system|popen)\s*\(\s*(?![`'"\s])/;

function judgeFile(file: SourceFile): ScriptVerdict | undefined {
  const text = file.text ?? '';
  const network = FILE_NETWORK.test(text);
  if (network && FILE_SECRETS.test(text)) return { severity: 'critical', reasons: [`runs ${file.path}, which reads secrets or the environment and reaches the network`] };
  if (DECODE.test(text) && /\beval\(|new\s+Function\(|(?<![.\w])exec\(/.test(text)) return { severity: 'critical', reasons: [`runs ${file.path}, which decodes and evaluates a payload`] };
  // Network plus process execution at install time is how droppers work, but also how install telemetry works
  // (a `ps -p …` call and a POST). A command or code computed at run time (`execSync(s)`, `eval(body)`) is the
  // dropper's shape; a literal command line is worth a review, not an alarm.
  if (network && FILE_EXEC.test(text)) {
    const computed = COMPUTED_EXEC.test(text);
    return {
      severity: computed ? 'critical' : 'high',
      reasons: [`runs ${file.path}, which reaches the network and executes ${computed ? 'computed code or commands' : 'commands'}`],
    };
  }
  return undefined;
}

function fileText(files: readonly SourceFile[], path: string): SourceFile | undefined {
  return files.find((file) => file.path === path);
}

function lineOf(files: readonly SourceFile[], manifestPath: string, needle: string): { line: number; column: number } {
  const text = fileText(files, manifestPath)?.text;
  const index = text?.indexOf(needle) ?? -1;
  return text && index >= 0 ? positionAt(text, index) : { line: 1, column: 1 };
}

const SETUP_INSTALL_OVERRIDE = /class\s+\w+\s*\(\s*(?:[\w.]*\.)?(?:install|develop|egg_info|easy_install|install_lib|install_scripts|bdist_egg|sdist)\s*\)/;
const SETUP_NETWORK = /\burllib\b|\burlopen\b|\brequests\.|\bhttp\.client\b|\bsocket\b|\b(?:curl|wget)\s/;
const SETUP_EXEC = /\bsubprocess\b|\bos\.system\(|\bos\.popen\(|\bexec\(|\beval\(|\bcompile\(|\b__import__\(/;
const SETUP_DECODE = /\bb64decode\b|\bbase64\.b\d+decode\b|\bcodecs\.decode\([^)]*rot|\bzlib\.decompress\b|\bmarshal\.loads\b/;

function judgeSetupPy(text: string): ScriptVerdict | undefined {
  const overridesInstall = /\bcmdclass\b/.test(text) && SETUP_INSTALL_OVERRIDE.test(text);
  const network = SETUP_NETWORK.test(text);
  const exec = SETUP_EXEC.test(text);
  const decode = SETUP_DECODE.test(text);
  // setup.py runs top to bottom on every source install; an install-command override runs again at install time.
  if ((network && exec) || (decode && exec)) {
    return {
      severity: 'critical',
      reasons: [`${overridesInstall ? 'overrides the install command and ' : ''}${network ? 'reaches the network' : 'decodes a payload'} and executes code or commands`],
    };
  }
  if (overridesInstall && (network || exec)) {
    return { severity: 'high', reasons: [`overrides the install command to ${network ? 'reach the network' : 'run commands or code'}`] };
  }
  return undefined;
}

export default createRule({
  id: 'install-script-execution',
  meta: {
    title: 'Install script downloads or executes code',
    category: 'malicious-install',
    severity: 'high',
    description:
      'An npm lifecycle script that runs on install (`preinstall`, `install`, `postinstall`, `prepare`) fetches ' +
      'from the network, pipes a download into a shell, decodes a base64 payload, or runs a script file that both ' +
      'reaches the network and executes code; or a Python `setup.py` that overrides the install command or runs ' +
      'network and process calls at build time. Install scripts run with the user\'s rights before anyone runs the ' +
      'server (`npx -y` installs and runs in one step), which makes them the usual way malicious packages act. Build ' +
      'steps such as `tsc` or a local build script are not reported.',
    remediation:
      'Ship built files instead of building or downloading on install. If a native binary is needed, use ' +
      'optionalDependencies per platform with integrity-checked tarballs. Users: install with `--ignore-scripts` ' +
      '(npm) or from wheels only (`pip install --only-binary :all:`) until the script is understood.',
    cwe: ['CWE-506', 'CWE-829', 'CWE-494'],
    owasp: 'MCP04',
    modes: ['fast', 'deep'],
    confidence: 0.8,
  },
  check(context) {
    for (const manifest of context.manifests) {
      if (manifest.kind === 'package.json') checkPackageJson(context, manifest);
      if (manifest.kind === 'setup.py' && typeof manifest.data === 'string') {
        const verdict = judgeSetupPy(manifest.data);
        if (!verdict) continue;
        const anchor = /cmdclass|subprocess|os\.system|urlopen|exec\(/.exec(manifest.data);
        const position = anchor ? positionAt(manifest.data, anchor.index) : { line: 1, column: 1 };
        context.report({
          severity: verdict.severity,
          location: { file: manifest.path, ...position },
          message: `${manifest.path} ${verdict.reasons.join('; ')} when the package is built or installed`,
          evidence: clip(manifest.data.split('\n').slice(position.line - 1, position.line + 2).join(' '), 300),
        });
      }
    }

    function checkPackageJson(ctx: typeof context, manifest: Manifest): void {
      const scripts = (manifest.data as { scripts?: Record<string, unknown> } | null)?.scripts;
      if (!scripts || typeof scripts !== 'object') return;
      for (const hook of INSTALL_HOOKS) {
        const command = scripts[hook];
        if (typeof command !== 'string') continue;
        const verdicts: ScriptVerdict[] = [];
        const direct = judgeCommand(command);
        if (direct) verdicts.push(direct);
        const base = posix.dirname(manifest.path);
        for (const scriptPath of scriptFilesOf(command)) {
          const file = fileText(ctx.files, posix.normalize(posix.join(base, scriptPath)));
          const verdict = file && judgeFile(file);
          if (verdict) verdicts.push(verdict);
        }
        if (verdicts.length === 0) continue;
        const severity = verdicts.some((verdict) => verdict.severity === 'critical') ? 'critical' : 'high';
        ctx.report({
          severity,
          key: hook,
          location: { file: manifest.path, ...lineOf(ctx.files, manifest.path, `"${hook}"`) },
          message: `The \`${hook}\` script ${verdicts.flatMap((verdict) => verdict.reasons).join('; ')}`,
          evidence: clip(`"${hook}": ${JSON.stringify(command)}`, 300),
        });
      }
    }
  },
});
