// What the Python dataflow knows about the standard library and common packages: sources, sinks, guards and the
// words that let it skip files and statements that cannot matter. Names are as `qualify` writes them.
import type { SinkKind } from '../../model.js';
import { stripsSeparators } from '../catalog.js';
import { stringValue, type CallArguments } from './syntax.js';

/** Origins other than tool input only matter where they leave the process or run as code. */
export const NON_INPUT_SINKS = new Set<SinkKind>(['command', 'code', 'deserialize', 'network', 'network-send', 'email', 'tool-result', 'log']);

export const SENSITIVE_PATH =
  /(^|[\\/~])\.ssh([\\/]|$)|id_(rsa|dsa|ecdsa|ed25519)\b|\.aws[\\/](credentials|config)|(^|[\\/])\.env$|\.config[\\/]gcloud|(^|[\\/~])\.netrc$|\.git-credentials|\.kube[\\/]config|\.docker[\\/]config\.json|\.npmrc$|\.pypirc$|\.cursor[\\/]mcp\.json|claude_desktop_config\.json|Login Data|Google[\\/]Chrome|\.mozilla[\\/]firefox|Library[\\/]Keychains|\.gnupg/;

export const NETWORK_TOOLS = /^(\S*\/)?(curl|wget|nc|ncat|netcat|socat|scp|sftp|ftp|rsync|telnet)$/;
export const SHELLS = /^(\/(usr\/)?bin\/)?(sh|bash|zsh|dash|ksh|fish|cmd(\.exe)?|powershell(\.exe)?|pwsh)$/;

export const HTTP_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options', 'request', 'stream', 'ws_connect']);
export const HTTP_CLIENT_TYPES = new Set([
  'requests',
  'httpx',
  'aiohttp',
  'requests.Session',
  'requests.session',
  'httpx.Client',
  'httpx.AsyncClient',
  'aiohttp.ClientSession',
]);
export const PAYLOAD_KEYWORDS = ['data', 'json', 'content', 'files', 'params'];

export const KNOWN_TYPES: Record<string, string> = {
  'pathlib.Path': 'pathlib.Path',
  'pathlib.PurePath': 'pathlib.Path',
  'pathlib.PosixPath': 'pathlib.Path',
  'pathlib.Path.home': 'pathlib.Path',
  'pathlib.Path.cwd': 'pathlib.Path',
  'anyio.Path': 'pathlib.Path',
  'requests.Session': 'requests.Session',
  'requests.session': 'requests.Session',
  'httpx.Client': 'httpx.Client',
  'httpx.AsyncClient': 'httpx.AsyncClient',
  'aiohttp.ClientSession': 'aiohttp.ClientSession',
  'smtplib.SMTP': 'smtplib.SMTP',
  'smtplib.SMTP_SSL': 'smtplib.SMTP',
  'urllib.request.Request': 'urllib.request.Request',
  'socket.socket': 'socket.socket',
  'socket.create_connection': 'socket.socket',
  'mcp.ClientSession': 'mcp.ClientSession',
  'mcp.client.session.ClientSession': 'mcp.ClientSession',
  'fastmcp.Client': 'mcp.ClientSession',
};

/** What a connected MCP server answers (tool results, resources, prompts): the `remote-response` of an MCP client. */
export const MCP_CLIENT_RESULTS = new Set(['call_tool', 'read_resource', 'get_prompt', 'list_tools', 'list_resources', 'list_prompts', 'complete']);

/** A remote server's answer is only judged where it runs: as a command, as code, or deserialised. */
export const EXECUTING_SINKS = new Set<SinkKind>(['command', 'code', 'deserialize']);

export const COMMAND_SHELL = new Set(['os.system', 'os.popen', 'commands.getoutput', 'commands.getstatusoutput', 'subprocess.getoutput', 'subprocess.getstatusoutput', 'asyncio.create_subprocess_shell']);
export const COMMAND_SUBPROCESS = new Set(['subprocess.run', 'subprocess.call', 'subprocess.check_call', 'subprocess.check_output', 'subprocess.Popen']);
export const COMMAND_ARGV = /^(asyncio\.create_subprocess_exec|os\.exec[lv]p?e?|os\.spawn[lv]p?e?|os\.posix_spawnp?)$/;
/** Python's OS opener: the URL's scheme picks the program that runs (the analogue of the `open` npm package). */
export const OPENER_CALLS = new Set(['webbrowser.open', 'webbrowser.open_new', 'webbrowser.open_new_tab', 'os.startfile']);
export const CODE_CALLS = new Set(['eval', 'exec', 'compile', '__import__', 'importlib.import_module', 'builtins.eval', 'builtins.exec']);
export const DESERIALIZE_CALLS = new Set([
  'pickle.loads', 'pickle.load', 'cPickle.loads', 'cPickle.load', '_pickle.loads', 'marshal.loads', 'marshal.load',
  'dill.loads', 'dill.load', 'cloudpickle.loads', 'cloudpickle.load', 'jsonpickle.decode', 'yaml.unsafe_load',
  'yaml.unsafe_load_all', 'pandas.read_pickle', 'shelve.open',
]);
export const YAML_LOAD = new Set(['yaml.load', 'yaml.load_all']);
export const SAFE_YAML_LOADER = /(Safe|Base)Loader\b/;
export const OPEN_CALLS = new Set(['open', 'io.open', 'codecs.open', 'aiofiles.open', 'builtins.open']);
export const FILE_WRITE_CALLS = new Set([
  'os.remove', 'os.unlink', 'os.rmdir', 'os.removedirs', 'os.makedirs', 'os.mkdir', 'shutil.rmtree', 'os.truncate',
  'os.chmod', 'os.chown', 'aiofiles.os.remove', 'aiofiles.os.unlink',
]);
export const FILE_MOVE_CALLS = new Set(['os.rename', 'os.replace', 'shutil.move', 'os.link', 'os.symlink']);
export const FILE_COPY_CALLS = new Set(['shutil.copy', 'shutil.copy2', 'shutil.copyfile', 'shutil.copytree']);
export const FILE_READ_CALLS = new Set(['os.listdir', 'os.scandir', 'os.walk', 'glob.glob', 'glob.iglob']);
export const PATH_READ_METHODS = new Set(['read_text', 'read_bytes', 'iterdir', 'glob', 'rglob']);
export const PATH_WRITE_METHODS = new Set(['write_text', 'write_bytes', 'unlink', 'rmdir', 'touch', 'mkdir', 'rename', 'replace', 'symlink_to']);
export const SQL_METHODS = new Set(['execute', 'executemany', 'executescript', 'exec_driver_sql']);
export const SQL_CALLS = new Set(['pandas.read_sql', 'pandas.read_sql_query']);
export const MUTATING_METHODS = new Set(['append', 'extend', 'update', 'insert', 'add', 'set_content', 'attach', 'add_header', 'set_payload', 'setdefault', 'writelines']);
export const LIST_METHODS = new Set(['append', 'extend', 'insert']);
export const NUMERIC_CALLS = new Set(['int', 'float', 'len', 'bool', 'abs', 'round', 'decimal.Decimal']);
export const BASENAME_CALLS = new Set(['os.path.basename', 'werkzeug.utils.secure_filename', 'pathvalidate.sanitize_filename']);
export const RESOLVE_CALLS = new Set(['os.path.realpath', 'os.path.abspath', 'os.path.normpath']);
export const PARAMETERISED_SQL_CALLS = /(^|\.)(sql\.Identifier|sql\.Literal|sql\.Placeholder|bindparam)$/;
export const EMBEDDING_METHODS = new Set(['format', 'join', 'replace', 'format_map']);
export const DECODERS: Record<string, BufferEncoding> = {
  'base64.b64decode': 'base64',
  'base64.standard_b64decode': 'base64',
  'base64.urlsafe_b64decode': 'base64url',
  'base64.decodebytes': 'base64',
  'binascii.a2b_base64': 'base64',
  'bytes.fromhex': 'hex',
  'binascii.unhexlify': 'hex',
  'binascii.a2b_hex': 'hex',
  'base64.b16decode': 'hex',
};

/** A fixed scheme and host at the start of a URL: the caller can only choose the path or query. */
export const FIXED_HOST = /^[a-z][a-z0-9+.-]*:\/\/[^/?#\s]+[/?#]/i;

export const SKIPPED_AT_MODULE_LEVEL = new Set(['function_definition', 'class_definition', 'decorated_definition', 'import_statement', 'import_from_statement', 'comment']);
/** Calls through which a secret or a decoded payload can leave the process or run. */
export const OUTBOUND_WORDS = /\b(exec|eval|compile|system|popen|subprocess|spawn\w*|getoutput|post|request|urlopen|send\w*|pickle|marshal|yaml|dill|import_module|__import__|create_subprocess_\w+)\b/;

/** Text that can produce an origin other than tool input: the environment, a secret's path, a decoder. */
export const ORIGIN_WORDS =
  /environ|getenv|b64decode|decodebytes|fromhex|unhexlify|a2b_|codecs\.(de|en)code|decompress|\bchr\(|\bbytes\(|\[::-1\]|\.ssh|id_(rsa|dsa|ecdsa|ed25519)|\.aws|\.env\b|gcloud|netrc|git-credentials|\.kube|\.docker|npmrc|pypirc|mcp\.json|claude_desktop|Login Data|Google.Chrome|\.mozilla|Keychains|gnupg/;

/** Calls whose arguments are a size or a count (CWE-400): `range(n)`, `bytearray(n)`, `os.urandom(n)`. */
export const ALLOCATION_CALLS = new Set(['range', 'bytearray', 'os.urandom', 'secrets.token_bytes', 'secrets.token_hex', 'secrets.token_urlsafe', 'itertools.repeat', 'numpy.zeros', 'numpy.ones', 'numpy.empty']);
/** Calls whose first argument is the text of a regular expression (CWE-1333), in `re` and the `regex` package. */
export const REGEX_CALLS = /^(re|regex)\.(compile|search|match|fullmatch|findall|finditer|sub|subn|split)$/;

/**
 * Calls that make a value one path segment (`true`) or undo it (`false`): `quote(x, safe='')` and `quote_plus` encode
 * `/`, `unquote` brings it back, `re.sub(r'[\\/]', '_', x)` strips both separators.
 */
export function segmentCall(qualified: string, args: CallArguments): boolean | undefined {
  if (qualified === 'urllib.parse.unquote' || qualified === 'urllib.parse.unquote_plus') return false;
  const safe = args.keywords.get('safe') ?? args.positional[1];
  if (qualified === 'urllib.parse.quote') return safe !== undefined && !/[\\/]/.test(stringValue(safe) ?? '/') ? true : undefined;
  if (qualified === 'urllib.parse.quote_plus') return safe === undefined || !/[\\/]/.test(stringValue(safe) ?? '/') ? true : undefined;
  if (qualified === 're.sub') {
    const pattern = stringValue(args.positional[0]);
    const by = stringValue(args.positional[1]);
    return pattern !== undefined && by !== undefined && stripsSeparators(pattern, 'g', by) ? true : undefined;
  }
  return undefined;
}
