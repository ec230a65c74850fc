import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { scanTarget, scanWorkspace } from './engine.js';

const cleanServer = fileURLToPath(new URL('../../../../fixtures/servers/clean-files-ts/', import.meta.url));
const at = new Date('2026-03-04T05:06:07.000Z');

describe('scan engine clock', () => {
  it('records the injected time as the start of a scanned and of a reported-only target', async () => {
    const scanned = await scanWorkspace({ target: { kind: 'directory', input: cleanServer, path: cleanServer }, root: cleanServer, name: 'clean', dispose: async () => {} }, { clock: () => at });
    expect(scanned.startedAt).toBe(at.toISOString());
    const remote = await scanTarget({ kind: 'remote', input: 'docker:mcp/server:1', url: 'docker:mcp/server:1' }, { clock: () => at });
    expect(remote.startedAt).toBe(at.toISOString());
  });
});
