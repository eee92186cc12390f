import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeAllAcpChildren } from '../../electron/gateway/runtime/acp';
import { confinePath, readConfinedText } from '../../electron/gateway/runtime/acp/confine';
import { makeWorkspace, messages, startFixture } from './helpers';

const ws = makeWorkspace();
const outside = (p: string) => `Path is outside the session working directory: ${p}`;

beforeAll(() => {
  mkdirSync(ws.dir);
  writeFileSync(path.join(ws.root, 'outside.txt'), 'secret');
  writeFileSync(path.join(ws.dir, 'notes.txt'), 'hello notes');
  writeFileSync(path.join(ws.dir, 'lines.txt'), 'one\ntwo\nthree\nfour');
  symlinkSync(path.join(ws.root, 'outside.txt'), path.join(ws.dir, 'link.txt'));
  symlinkSync(ws.root, path.join(ws.dir, 'linkdir'));
  symlinkSync(path.join(ws.dir, 'notes.txt'), path.join(ws.dir, 'inner-link.txt'));
});
afterEach(() => closeAllAcpChildren());
afterAll(() => ws.cleanup());

describe('confinePath', () => {
  it('accepts paths inside the root, including ones that do not exist yet and inner symlinks', async () => {
    expect(await confinePath(ws.dir, path.join(ws.dir, 'notes.txt'))).toBe(path.join(ws.dir, 'notes.txt'));
    expect(await confinePath(ws.dir, 'new/deep/file.txt')).toBe(path.join(ws.dir, 'new/deep/file.txt'));
    expect(await confinePath(ws.dir, 'inner-link.txt')).toBe(path.join(ws.dir, 'notes.txt'));
  });

  it('rejects .. and symlink escapes with a clear error', async () => {
    for (const p of [
      `${ws.dir}/../outside.txt`,
      '../outside.txt',
      '/etc/passwd',
      'link.txt',
      'linkdir/new.txt',
    ]) {
      await expect(confinePath(ws.dir, p)).rejects.toThrow(outside(p));
    }
  });

  it('reads a line window (1-based line, limit in lines)', async () => {
    expect(await readConfinedText(ws.dir, 'lines.txt', 2, 2)).toBe('two\nthree');
    expect(await readConfinedText(ws.dir, 'lines.txt', 3)).toBe('three\nfour');
    await expect(readConfinedText(ws.dir, 'missing.txt')).rejects.toThrow('File not found: missing.txt');
  });
});

describe('fs and terminal capabilities served to the agent', () => {
  it('serves reads and writes inside the working directory only', async () => {
    const { child, updates } = await startFixture(ws.dir);
    expect(await child.prompt('fs')).toEqual({ outcome: 'completed', stopReason: 'end_turn' });
    expect(messages(updates).split('\n')).toEqual([
      'read notes.txt: hello notes',
      'write sub/out.txt: ok',
      `read ../outside.txt: error ${outside(`${ws.dir}/../outside.txt`)}`,
      `write ../outside.txt: error ${outside(`${ws.dir}/../outside.txt`)}`,
      `read link.txt: error ${outside(path.join(ws.dir, 'link.txt'))}`,
      `write linkdir/x.txt: error ${outside(path.join(ws.dir, 'linkdir', 'x.txt'))}`,
    ]);
    expect(readFileSync(path.join(ws.dir, 'sub', 'out.txt'), 'utf8')).toBe('written by the agent');
    expect(readFileSync(path.join(ws.root, 'outside.txt'), 'utf8')).toBe('secret');
    expect(existsSync(path.join(ws.root, 'x.txt'))).toBe(false);
  });

  it('runs terminal commands inside the working directory with bounded output', async () => {
    const { child, updates } = await startFixture(ws.dir);
    expect(await child.prompt('terminal')).toEqual({ outcome: 'completed', stopReason: 'end_turn' });
    expect(messages(updates).split('\n')).toEqual([
      `pwd: exit 0 output ${JSON.stringify(ws.dir)} truncated false`,
      'long: exit 0 output "xxxxxxxEND" truncated true',
      `outside: error ${outside(ws.root)}`,
      'missing: error ACP agent command not found: no-such-command-for-acp-fixture',
    ]);
  });
});
