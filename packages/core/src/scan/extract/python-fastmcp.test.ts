import { rm } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../model.js';
import { pythonAnalyzer } from '../analysis/python/index.js';
import { pythonSources, writeProject } from '../analysis/python/test-support.js';
import { googleArgs } from './python-fastmcp.js';

const roots: string[] = [];
afterAll(async () => {
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
});

async function extract(files: Record<string, string>): Promise<ToolDefinition[]> {
  const root = await writeProject(files);
  roots.push(root);
  const result = await pythonAnalyzer.analyze(await pythonSources(root), { mode: 'fast' });
  expect(result.problems).toEqual([]);
  return result.tools;
}

const SERVER = `
from typing import Annotated, Literal, Optional

from mcp.server.fastmcp import Context, FastMCP
from mcp.types import ToolAnnotations
from pydantic import Field

INSTRUCTIONS = "Use the forecast tools for weather questions."
mcp = FastMCP("weather", instructions=INSTRUCTIONS)


@mcp.tool
def bare(city: str) -> str:
    """Bare decorator."""
    return city


@mcp.tool()
async def forecast(
    city: Annotated[str, Field(description="City name", pattern=r"^[A-Za-z ]+$")],
    units: Literal["metric", "imperial"] = "metric",
    days: int = Field(3, description="How many days"),
    detail: Optional[Literal["short", "long"]] = None,
    region: str = Field(..., description="Region code"),
    ctx: Context = None,
) -> str:
    """
        Get the forecast.

        Longer text that stays in the description.

        Args:
            city: Ignored because Field has a description.
            units (str): Unit system to use
                for temperatures.
            detail: How much detail.

        Returns:
            The forecast.
    """
    return city


@mcp.tool(name="alerts_v2", description="Active alerts.", title="Alerts", annotations=ToolAnnotations(readOnlyHint=True, destructiveHint=False))
def alerts(state: str) -> str:
    """This docstring is not used."""
    return state


@mcp.tool(annotations={"destructiveHint": True})
def purge(confirm: bool) -> str:
    return "done"


@mcp.prompt()
def summarize(text: str) -> str:
    """Summarize a text."""
    return text


@mcp.resource("weather://{city}/today")
def today(city: str) -> str:
    """Today's weather."""
    return city


def not_a_tool(x: str) -> str:
    return x
`;

describe('FastMCP extraction', () => {
  it('reads decorators, signatures and docstrings', async () => {
    const tools = await extract({ 'server.py': SERVER });
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect([...byName.keys()].sort()).toEqual(['alerts_v2', 'bare', 'forecast', 'purge', 'summarize', 'today', 'weather']);

    const instructions = byName.get('weather')!;
    expect(instructions.kind).toBe('instructions');
    expect(instructions.description).toBe('Use the forecast tools for weather questions.');

    const bare = byName.get('bare')!;
    expect(bare).toMatchObject({ kind: 'tool', description: 'Bare decorator.', extractor: 'python-fastmcp' });
    expect(bare.parameters).toEqual([{ name: 'city', type: 'str', required: true }]);
    expect(bare.location).toMatchObject({ file: 'server.py', line: 13 });
    expect(bare.handlerId).toMatch(/^server\.py#\d+:bare$/);

    const forecast = byName.get('forecast')!;
    expect(forecast.description).toBe(
      'Get the forecast.\n\nLonger text that stays in the description.\n\nArgs:\n    city: Ignored because Field has a description.\n    units (str): Unit system to use\n        for temperatures.\n    detail: How much detail.\n\nReturns:\n    The forecast.',
    );
    expect(forecast.parameters).toEqual([
      { name: 'city', type: 'str', description: 'City name', pattern: '^[A-Za-z ]+$', required: true },
      { name: 'units', type: 'Literal["metric", "imperial"]', enum: ['metric', 'imperial'], default: 'metric', description: 'Unit system to use for temperatures.', required: false },
      { name: 'days', type: 'int', description: 'How many days', default: 3, required: false },
      { name: 'detail', type: 'Optional[Literal["short", "long"]]', enum: ['short', 'long'], description: 'How much detail.', required: false },
      { name: 'region', type: 'str', description: 'Region code', required: true },
    ]);

    const alerts = byName.get('alerts_v2')!;
    expect(alerts).toMatchObject({ description: 'Active alerts.', title: 'Alerts', annotations: { readOnlyHint: true, destructiveHint: false } });
    expect(byName.get('purge')!.annotations).toEqual({ destructiveHint: true });
    expect(byName.get('purge')!.description).toBeUndefined();

    expect(byName.get('summarize')).toMatchObject({ kind: 'prompt', description: 'Summarize a text.' });
    expect(byName.get('today')).toMatchObject({ kind: 'resource', uri: 'weather://{city}/today', description: "Today's weather." });
  });

  it('finds tools declared in another module of the standalone fastmcp package', async () => {
    const tools = await extract({
      'app/__init__.py': '',
      'app/server.py': 'from fastmcp import FastMCP\n\napp = FastMCP(name="split")\n\nfrom . import tools  # noqa: registers tools\n',
      'app/tools.py': 'from .server import app\n\n\n@app.tool\ndef ping() -> str:\n    """Ping."""\n    return "pong"\n',
      'other.py': 'class Registry:\n    def tool(self):\n        return lambda f: f\n\nregistry = Registry()\n\n@registry.tool()\ndef unrelated():\n    pass\n',
    });
    expect(tools.map((tool) => `${tool.kind}:${tool.name}@${tool.location.file}`)).toEqual(['tool:ping@app/tools.py']);
  });
});

describe('FastMCP registration without decorators', () => {
  it('reads mcp.add_tool(fn, …) and mcp.tool(…)(fn) at module level', async () => {
    const tools = await extract({
      'server.py': [
        'import os',
        'from mcp.server.fastmcp import FastMCP',
        'mcp = FastMCP("plain")',
        'def remove(path: str) -> str:',
        '    """Delete a file."""',
        '    os.remove(path)',
        '    return "ok"',
        'def echo(text: str) -> str:',
        '    return text',
        'def unused(x: str) -> str:',
        '    return x',
        'mcp.add_tool(remove, name="delete_file")',
        'mcp.tool(description="Echo the text back.")(echo)',
        '',
      ].join('\n'),
    });
    expect(tools.map((tool) => `${tool.kind}:${tool.name}:${tool.description}`)).toEqual(['tool:delete_file:Delete a file.', 'tool:echo:Echo the text back.']);
  });
});

describe('googleArgs', () => {
  it('reads entries with types and continuation lines and stops at the next section', () => {
    const args = googleArgs('Summary.\n\nArgs:\n    a: First.\n    b (int): Second\n        continued.\n    **kwargs: Extra.\n\nReturns:\n    c: not an arg');
    expect(Object.fromEntries(args)).toEqual({ a: 'First.', b: 'Second continued.', kwargs: 'Extra.' });
  });

  it('returns nothing without an Args section', () => {
    expect(googleArgs('Just text.\nx: y').size).toBe(0);
  });
});
