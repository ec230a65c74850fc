import { rm } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import type { LanguageAnalysis } from '../analysis/analyzer.js';
import { pythonAnalyzer } from '../analysis/python/index.js';
import { pythonSources, writeProject } from '../analysis/python/test-support.js';
import { schemaParameters } from './python-lowlevel.js';

const roots: string[] = [];
afterAll(async () => {
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
});

async function analyze(files: Record<string, string>): Promise<LanguageAnalysis> {
  const root = await writeProject(files);
  roots.push(root);
  const result = await pythonAnalyzer.analyze(await pythonSources(root), { mode: 'fast' });
  expect(result.problems).toEqual([]);
  return result;
}

const SERVER = `
import subprocess

import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.types import Tool

from .handlers import handle_read

server = Server("ops", instructions="Operations helpers.")

TOOLS = [
    Tool(
        name="run",
        description="Run a maintenance script.",
        inputSchema={
            "type": "object",
            "properties": {
                "script": {"type": "string", "description": "Script name", "enum": ["backup", "rotate"]},
                "args": {"type": "string", "pattern": "^[a-z]+$", "default": "all"},
            },
            "required": ["script"],
        },
        annotations=types.ToolAnnotations(destructiveHint=True),
    ),
    types.Tool(
        name="shell",
        description="Run a shell line.",
        inputSchema={"type": "object", "properties": {"line": {"type": "string"}}, "required": ["line"]},
    ),
    types.Tool(name="read", description="Read a file.", inputSchema={"type": "object", "properties": {"path": {"type": "string"}}}),
]


@server.list_tools()
async def list_tools() -> list[types.Tool]:
    return TOOLS


@server.list_prompts()
async def list_prompts() -> list[types.Prompt]:
    return [
        types.Prompt(
            name="triage",
            description="Triage an incident.",
            arguments=[types.PromptArgument(name="incident", description="Incident id", required=True)],
        )
    ]


@server.call_tool()
async def call_tool(name: str, arguments: dict) -> list[types.TextContent]:
    args = arguments or {}
    if name == "run":
        subprocess.run(["/opt/scripts/" + args["script"], args.get("args", "all")])
        text = "ran"
    elif name == "shell":
        text = subprocess.check_output(args["line"], shell=True).decode()
    elif name in ("read",):
        text = handle_read(arguments)
    else:
        raise ValueError(name)
    return [types.TextContent(type="text", text=text)]
`;

const HANDLERS = `
def handle_read(arguments: dict) -> str:
    return _read(arguments)


def _read(args: dict) -> str:
    with open(args["path"]) as handle:
        return handle.read()
`;

describe('low-level Server extraction', () => {
  it('reads Tool(...) definitions returned by list_tools, prompts and instructions', async () => {
    const { tools } = await analyze({ 'ops/__init__.py': '', 'ops/server.py': SERVER, 'ops/handlers.py': HANDLERS });
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect([...byName.keys()].sort()).toEqual(['ops', 'read', 'run', 'shell', 'triage']);
    expect(byName.get('ops')).toMatchObject({ kind: 'instructions', description: 'Operations helpers.', extractor: 'python-lowlevel' });
    const run = byName.get('run')!;
    expect(run).toMatchObject({ kind: 'tool', description: 'Run a maintenance script.', annotations: { destructiveHint: true }, extractor: 'python-lowlevel' });
    expect(run.parameters).toEqual([
      { name: 'script', type: 'string', description: 'Script name', enum: ['backup', 'rotate'], required: true },
      { name: 'args', type: 'string', pattern: '^[a-z]+$', default: 'all', required: false },
    ]);
    expect(run.location.file).toBe('ops/server.py');
    expect(run.handlerId).toMatch(/^ops\/server\.py#\d+:run$/);
    expect(byName.get('triage')).toMatchObject({ kind: 'prompt', parameters: [{ name: 'incident', description: 'Incident id', required: true }] });
  });

  it('attributes each call_tool branch to its own tool and parameter', async () => {
    const { flows } = await analyze({ 'ops/__init__.py': '', 'ops/server.py': SERVER, 'ops/handlers.py': HANDLERS });
    const summary = flows
      .filter((flow) => flow.origin.kind === 'tool-input')
      .map((flow) => `${flow.origin.tool}.${flow.origin.param} -> ${flow.sink.kind}${flow.sink.shell ? ' (shell)' : ''} [${flow.sanitizers.join(',')}]${flow.crossFile ? ' x-file' : ''}`)
      .sort();
    expect(summary).toEqual([
      'read.path -> file-read [] x-file',
      'run.args -> command [execFile-argv,schema-pattern]',
      'run.script -> command [schema-enum]',
      'shell.line -> command (shell) []',
    ]);
  });

  it('dispatches with match statements too', async () => {
    const { flows } = await analyze({
      'server.py': [
        'import os',
        'from mcp.server import Server',
        'from mcp.types import Tool',
        'app = Server("m")',
        '@app.list_tools()',
        'async def tools():',
        '    return [Tool(name="a", inputSchema={"type": "object", "properties": {"x": {"type": "string"}}}), Tool(name="b", inputSchema={})]',
        '@app.call_tool()',
        'async def call(name, arguments):',
        '    match name:',
        '        case "a":',
        '            return os.system(arguments["x"])',
        '        case "b":',
        '            return eval(arguments["x"])',
        '',
      ].join('\n'),
    });
    expect(flows.map((flow) => `${flow.origin.tool}.${flow.origin.param}:${flow.sink.kind}`).sort()).toEqual(['a.x:command', 'b.x:code']);
  });
});

describe('low-level servers registered inside a function', () => {
  it('reads Enum tool names, pydantic input models and match dispatch on Enum members', async () => {
    const { tools, flows } = await analyze({
      'gitserver/__init__.py': '',
      'gitserver/models.py': [
        'from typing import Literal, Optional',
        'from pydantic import BaseModel, Field',
        'class Checkout(BaseModel):',
        '    repo_path: str',
        '    branch: str = Field(..., description="Branch to check out")',
        '    mode: Literal["safe", "force"] = "safe"',
        '    note: Optional[str] = None',
        '',
      ].join('\n'),
      'gitserver/server.py': [
        'import subprocess',
        'from enum import Enum',
        'from mcp.server import Server',
        'from mcp.types import TextContent, Tool',
        'from .models import Checkout',
        'class Tools(str, Enum):',
        '    STATUS = "git_status"',
        '    CHECKOUT = "git_checkout"',
        'async def serve(repository):',
        '    server = Server("mcp-git")',
        '    @server.list_tools()',
        '    async def list_tools() -> list[Tool]:',
        '        return [',
        '            Tool(name=Tools.STATUS, description="Status", inputSchema={"type": "object", "properties": {"repo_path": {"type": "string"}}}),',
        '            Tool(name=Tools.CHECKOUT, description="Switch branches", inputSchema=Checkout.model_json_schema()),',
        '        ]',
        '    @server.call_tool()',
        '    async def call_tool(name: str, arguments: dict) -> list[TextContent]:',
        '        repo = arguments["repo_path"]',
        '        match name:',
        '            case Tools.STATUS:',
        '                out = subprocess.check_output(["git", "-C", repo, "status"])',
        '            case Tools.CHECKOUT:',
        '                out = subprocess.check_output(f"git -C {repo} checkout {arguments[\'branch\']}", shell=True)',
        '        return [TextContent(type="text", text=out.decode())]',
        '',
      ].join('\n'),
    });
    const checkout = tools.find((tool) => tool.name === 'git_checkout');
    expect(tools.filter((tool) => tool.kind === 'tool').map((tool) => tool.name)).toEqual(['git_status', 'git_checkout']);
    expect(checkout?.parameters).toEqual([
      { name: 'repo_path', type: 'str', required: true },
      { name: 'branch', type: 'str', description: 'Branch to check out', required: true },
      { name: 'mode', type: 'Literal["safe", "force"]', enum: ['safe', 'force'], default: 'safe', required: false },
      { name: 'note', type: 'Optional[str]', required: false },
    ]);
    const summary = flows.map((flow) => `${flow.origin.tool}.${flow.origin.param}${flow.sink.shell ? ' shell' : ''} [${flow.sanitizers.join(',')}]`).sort();
    expect(summary).toEqual(['git_checkout.branch shell []', 'git_checkout.repo_path shell []', 'git_status.repo_path [option-value]']);
  });
});

describe('schemaParameters', () => {
  it('tolerates schemas without properties', () => {
    expect(schemaParameters({ type: 'object' })).toEqual([]);
    expect(schemaParameters('nope')).toEqual([]);
    expect(schemaParameters({ properties: { n: { type: ['integer', 'null'], format: 'int32' } }, required: ['n'] })).toEqual([
      { name: 'n', type: 'integer | null', format: 'int32', required: true },
    ]);
  });

  it('dispatches through a handler table keyed by an Enum, binding the arguments mapping to the handler', async () => {
    const result = await analyze({ 'ops/server.py': `import subprocess
from enum import Enum
import mcp.types as types
from mcp.server.lowlevel import Server

server = Server("x")

class ToolName(str, Enum):
    RUN = "run"
    ECHO = "echo"

def do_run(args: dict) -> str:
    return subprocess.run(f"make {args['target']}", shell=True, capture_output=True, text=True).stdout

def do_echo(args: dict) -> str:
    return args.get("text", "")

HANDLERS = {ToolName.RUN: do_run, ToolName.ECHO.value: do_echo}

@server.list_tools()
async def list_tools():
    return [
        types.Tool(name=ToolName.RUN, description="Run a make target.", inputSchema={"type": "object", "properties": {"target": {"type": "string"}}}),
        types.Tool(name="echo", description="Echo.", inputSchema={"type": "object", "properties": {"text": {"type": "string"}}}),
    ]

@server.call_tool()
async def call_tool(name: str, arguments: dict):
    handler = HANDLERS[name]
    return [types.TextContent(type="text", text=handler(arguments))]
` });
    expect(result.tools.map((tool) => tool.name)).toEqual(['run', 'echo']);
    const commands = result.flows.filter((flow) => flow.sink.kind === 'command');
    expect(commands.map((flow) => [flow.origin.tool, flow.origin.param, flow.sink.shell, flow.composition])).toEqual([['run', 'target', true, 'embedded']]);
  });
});
