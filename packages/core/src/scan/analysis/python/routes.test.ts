import { rm } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { pythonAnalyzer } from './index.js';
import { pythonSources, writeProject } from './test-support.js';

const roots: string[] = [];
afterAll(async () => {
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
});

async function flowsOf(files: Record<string, string>) {
  const root = await writeProject(files);
  roots.push(root);
  const result = await pythonAnalyzer.analyze(await pythonSources(root), { mode: 'fast' });
  expect(result.problems).toEqual([]);
  return result.flows;
}

describe('http-request sources of Python web routes', () => {
  it('reads aiohttp and Starlette route tables, FastAPI parameters, and leaves dependencies alone', async () => {
    const flows = await flowsOf({
      'svc/web.py': `
import os
import subprocess

from aiohttp import web
from fastapi import Depends, FastAPI
from starlette.applications import Starlette
from starlette.routing import Route


async def resolve(request: web.Request) -> web.Response:
    name = request.match_info["name"]
    os.system("host " + name)
    return web.Response(text="ok")


async def build(request):
    body = await request.json()
    subprocess.run(f"make {body['target']}", shell=True)


def settings() -> str:
    return "prod"


api = FastAPI()


@api.get("/items/{item_id}")
def item(item_id: int, env: str = Depends(settings)) -> dict:
    os.system(f"echo {item_id} {env}")
    return {}


app = web.Application()
app.router.add_get("/resolve/{name}", resolve)
starlette = Starlette(routes=[Route("/build", build, methods=["POST"])])
`,
    });
    const fromRequest = flows.filter((flow) => flow.origin.kind === 'http-request' && flow.sink.kind === 'command');
    expect(fromRequest.map((flow) => [flow.origin.detail, flow.sanitizers]).sort()).toEqual([
      ['/build request', []],
      ['/resolve/{name} request', []],
      ['GET /items/{item_id} item_id', ['numeric']],
    ]);
  });
});
