// What an ACP agent changed: the fixture agent edits two files (tool calls with `diff` content);
// the transcript keeps each diff with its tool call, paths relative to the session's folder, and
// the session knows which files its agent changed.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DiffCollector, MAX_DIFF_TEXT } from '../../electron/gateway/runtime/acp/diffs';
import { openTestGateway, tempDir, waitFor, type TestGateway } from '../helpers/gateway';

const AGENT = path.resolve('test/fixtures/acp-agent/agent.mjs');
let t: TestGateway;
let cwd: string;
afterEach(() => {
  t?.cleanup();
  fs.rmSync(cwd, { recursive: true, force: true });
});

describe('diffs of ACP tool calls', () => {
  it('keeps each diff with its tool call, relative to the session folder', async () => {
    t = openTestGateway();
    const gw = t.gw;
    gw.acp.profiles.save({
      id: 'fixture',
      name: 'Fixture agent',
      command: process.execPath,
      args: [AGENT],
      env: {},
    });
    cwd = fs.realpathSync(tempDir());
    const info = await gw.sessions.start({ acpProfileId: 'fixture', cwd, message: 'diff' });
    await waitFor(() => gw.runtime.sessionStatus(info.key) === 'idle', 8000, 'run');
    const tools = gw.transcripts.all(info.key).filter((m) => m.role === 'tool');
    expect(tools.map((m) => [m.text, m.diffs?.map((d) => d.path)])).toEqual([
      ['Edit src/app.ts — in_progress', undefined],
      ['Edit src/app.ts — completed', ['src/app.ts']],
      ['Write NOTES.md — completed', ['NOTES.md']],
      ['Write docs/CHANGELOG.md — completed', ['docs/CHANGELOG.md']],
    ]);
    const edit = tools[1]!.diffs![0]!;
    expect(edit.oldText!.split('\n')[9]).toBe('line 10');
    expect(edit.newText.split('\n')[9]).toBe('line 10 changed');
    expect(tools[2]!.diffs).toEqual([{ path: 'NOTES.md', oldText: null, newText: 'new notes\n' }]);
    // A diff without oldText is a new file.
    expect(tools[3]!.diffs![0]!.oldText).toBeNull();
    expect(gw.transcripts.changedFiles(info.key)).toEqual(['NOTES.md', 'docs/CHANGELOG.md', 'src/app.ts']);
    // A reset clears the transcript, and with it what the agent changed in this session.
    gw.sessions.reset(info.key);
    expect(gw.transcripts.changedFiles(info.key)).toEqual([]);
  });

  it('bounds each side, keeps the last diff of a file, and leaves paths outside the folder absolute', () => {
    cwd = fs.realpathSync(tempDir());
    const c = new DiffCollector(cwd);
    c.add('t1', [{ path: path.join(cwd, 'a.txt'), oldText: 'x', newText: 'first' }]);
    c.add('t1', [
      { path: path.join(cwd, 'a.txt'), oldText: 'x', newText: 'second' },
      { path: '/etc/hosts', oldText: null, newText: 'y'.repeat(MAX_DIFF_TEXT + 5) },
    ]);
    const [a, hosts] = c.take('t1')!;
    expect(a).toEqual({ path: 'a.txt', oldText: 'x', newText: 'second' });
    expect(hosts!.path).toBe('/etc/hosts');
    expect(hosts!.newText).toHaveLength(MAX_DIFF_TEXT);
    expect(hosts!.truncated).toBe(true);
    expect(c.take('t1')).toBeUndefined();
  });
});
