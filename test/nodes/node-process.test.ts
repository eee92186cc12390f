// `sightline node` as a process (issue 19.1), driven over its stdin/stdout with raw frames: it
// speaks first (MAGIC, then its hello), logs only to stderr, serves nothing outside its roots
// (`..` and symlinks included, also a file or folder swapped for a link after it was checked),
// checks a watch set from the markers it was given (never moving one by itself) and refuses a
// 10 MiB frame, a frame of garbage and a wrong protocol version with a clear error, reading
// nothing of them.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FrameReader, MAGIC, encodeFrame } from '../../electron/gateway/nodes/protocol';
import { waitFor } from '../helpers/gateway';
import { CLAUDE_ID, claudeUser, writeClaude } from '../catalog/fixtures';
import { makeNode, type TestNode } from './helpers';

interface Running {
  node: TestNode;
  child: ChildProcessWithoutNullStreams;
  frames: Record<string, unknown>[];
  raw: () => Buffer;
  stderr: () => string;
  exit: Promise<number | null>;
  send(msg: unknown): void;
  ask(op: string, args?: Record<string, unknown>): Promise<Record<string, unknown>>;
}

const running: Running[] = [];
afterEach(() => {
  for (const r of running.splice(0)) {
    r.child.kill('SIGKILL');
    fs.rmSync(r.node.dir, { recursive: true, force: true });
  }
});

async function start(extra: string[] = []): Promise<Running> {
  const node = await makeNode(extra);
  const child = spawn(node.command[0]!, node.command.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] });
  const frames: Record<string, unknown>[] = [];
  const reader = new FrameReader({ magic: true });
  let raw = Buffer.alloc(0);
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    raw = Buffer.concat([raw, d]);
    frames.push(...reader.push(d));
  });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin.on('error', () => {});
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let id = 0;
  const r: Running = {
    node,
    child,
    frames,
    raw: () => raw,
    stderr: () => stderr,
    exit,
    send: (msg) => child.stdin.write(encodeFrame(msg)),
    async ask(op, args = {}) {
      const n = ++id;
      r.send({ type: 'req', id: n, op, args });
      return waitFor(() => frames.find((f) => f.id === n), 10_000, `the answer to ${op}`);
    },
  };
  running.push(r);
  await waitFor(() => frames[0], 10_000, 'the hello');
  return r;
}

const HELLO = { type: 'hello', protocol: 2 };

describe('sightline node', () => {
  it('speaks first: MAGIC, then a hello with its stable id, protocol and tools', async () => {
    const r = await start();
    expect(r.raw().subarray(0, MAGIC.length).equals(MAGIC)).toBe(true);
    const id = fs.readFileSync(path.join(r.node.dataDir, 'id'), 'utf8').trim();
    expect(r.frames[0]).toMatchObject({ type: 'hello', protocol: 2, nodeId: id, allowContinue: false });
    const providers = r.frames[0]!.providers as { id: string; available: boolean; reason?: string }[];
    expect(providers.map((p) => p.id)).toEqual(['claude', 'codex', 'opencode', 'pi']);
    // The same data dir is the same node.
    const again = await start(['--data-dir', r.node.dataDir]);
    expect(again.frames[0]?.nodeId).toBe(id);
  });

  it('lists, finds and checks its sessions from a byte marker, read-only', async () => {
    const r = await start();
    const file = writeClaude(r.node.roots.claude);
    r.send(HELLO);
    const list = (await r.ask('list')).result as { entries: { threadId: string }[] };
    expect(list.entries.map((e) => e.threadId)).toEqual([CLAUDE_ID]);
    const found = (await r.ask('find', { provider: 'claude', threadId: CLAUDE_ID })).result as {
      ref: unknown;
    };
    expect(found.ref).toEqual({ kind: 'file', path: file });
    const marker = (await r.ask('baseline', { provider: 'claude', ref: found.ref })).result as {
      offset: number;
    };
    expect(marker).toMatchObject({ offset: fs.statSync(file).size });
    const link = { id: 7, provider: 'claude', ref: found.ref, marker };
    // Idle: nothing in the answer, unless asked to report that link whatever its outcome.
    expect((await r.ask('check', { set: [link] })).result).toEqual({ results: [] });
    expect((await r.ask('check', { report: [7] })).result).toEqual({ results: [{ id: 7, kind: 'idle' }] });
    fs.appendFileSync(file, claudeUser('one') + claudeUser('two'));
    const checked = (await r.ask('check', {})).result as { results: Record<string, unknown>[] };
    expect(checked.results).toEqual([
      expect.objectContaining({
        id: 7,
        kind: 'activity',
        turns: 2,
        changed: true,
        from: String(marker.offset),
      }),
    ]);
    const next = checked.results[0]!.marker as { offset: number };
    expect(next.offset).toBe(fs.statSync(file).size);
    // The node never moves a marker itself: until the gateway sends the new one, the same outcome.
    expect(((await r.ask('check', {})).result as { results: unknown[] }).results).toEqual(checked.results);
    expect(await r.ask('check', { set: [{ ...link, marker: next }] })).toMatchObject({
      result: { results: [] },
    });
    // Dropped: no longer checked.
    fs.appendFileSync(file, claudeUser('three'));
    expect(await r.ask('watch', { drop: [7] })).toMatchObject({ result: { watching: 0 } });
    expect(await r.ask('check', {})).toMatchObject({ result: { results: [] } });
    // A malformed watch request changes nothing.
    expect((await r.ask('watch', { set: [{ ...link, id: 8 }, { provider: 'claude' }] })).error).toMatchObject(
      {
        code: 'bad_request',
      },
    );
    expect(await r.ask('watch', {})).toMatchObject({ result: { watching: 0 } });
    expect(
      (await r.ask('find', { provider: 'claude', threadId: '00000000-0000-4000-8000-000000000000' })).error,
    ).toMatchObject({
      code: 'not_found',
    });
    expect(r.stderr()).toBe('');
  });

  it('serves nothing outside its roots: absolute paths, .. and symlinks are refused before any read', async () => {
    const r = await start();
    r.send(HELLO);
    const secret = path.join(r.node.dir, 'secret.jsonl');
    fs.writeFileSync(secret, claudeUser('not yours'));
    const link = path.join(r.node.roots.claude, 'proj', `${CLAUDE_ID}.jsonl`);
    fs.mkdirSync(path.dirname(link), { recursive: true });
    fs.symlinkSync(secret, link);
    const dirLink = path.join(r.node.roots.claude, 'elsewhere');
    fs.symlinkSync(r.node.dir, dirLink);
    const marker = { offset: 0, inode: null, markerJson: null, scanState: null };
    for (const p of [
      '/etc/passwd',
      secret,
      path.join(r.node.roots.claude, '..', '..', '..', 'secret.jsonl'),
      link,
      path.join(dirLink, 'secret.jsonl'),
    ]) {
      const ref = { kind: 'file', path: p };
      const checked = (await r.ask('check', { set: [{ id: 1, provider: 'claude', ref, marker }] }))
        .result as { results: Record<string, unknown>[] };
      expect(checked.results[0], p).toMatchObject({ id: 1, kind: 'refused', code: 'outside_roots' });
      expect(String(checked.results[0]?.error)).toContain('outside the catalog roots');
      expect((await r.ask('tail', { provider: 'claude', ref, limit: 10 })).error, p).toMatchObject({
        code: 'outside_roots',
      });
    }
    // The symlinked transcript is not listed either, and the node keeps serving.
    expect(((await r.ask('list')).result as { entries: unknown[] }).entries).toEqual([]);
  });

  it('refuses a watched file or folder swapped for a link after it was checked', async () => {
    const r = await start();
    r.send(HELLO);
    const secretDir = path.join(r.node.dir, 'secret');
    fs.mkdirSync(secretDir);
    const file = writeClaude(r.node.roots.claude);
    const secret = path.join(secretDir, path.basename(file));
    fs.writeFileSync(secret, claudeUser('not yours') + claudeUser('nor this'));
    const ref = { kind: 'file', path: file };
    const marker = (await r.ask('baseline', { provider: 'claude', ref })).result;
    const refused = { id: 1, kind: 'refused', code: 'outside_roots' };
    expect(await r.ask('check', { set: [{ id: 1, provider: 'claude', ref, marker }] })).toMatchObject({
      result: { results: [] },
    });
    // The file itself becomes a link to a file outside the roots.
    fs.rmSync(file);
    fs.symlinkSync(secret, file);
    expect((await r.ask('check', {})).result).toEqual({ results: [expect.objectContaining(refused)] });
    // Back to a plain file: served again (it is checked afresh).
    fs.rmSync(file);
    fs.writeFileSync(file, claudeUser('mine'));
    expect((await r.ask('check', {})).result).toEqual({
      results: [expect.objectContaining({ id: 1, kind: 'rebaseline' })],
    });
    // Its folder becomes a link to a folder outside the roots, holding a file of the same name.
    const dir = path.dirname(file);
    fs.rmSync(dir, { recursive: true });
    fs.symlinkSync(secretDir, dir);
    expect((await r.ask('check', {})).result).toEqual({ results: [expect.objectContaining(refused)] });
    expect(r.stderr()).toBe('');
  });

  it('stops a check at its budget and starts the next one where it stopped', async () => {
    const r = await start();
    r.send(HELLO);
    const marker = { offset: 0, inode: null, markerJson: null, scanState: null };
    const set = [1, 2, 3].map((id) => {
      const file = path.join(r.node.roots.claude, 'p', `${id}.jsonl`);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, claudeUser(`prompt ${id}`));
      return { id, provider: 'claude', ref: { kind: 'file', path: file }, marker };
    });
    const ids = async (args: Record<string, unknown>) => {
      const a = (await r.ask('check', args)).result as { results: { id: number }[]; partial?: true };
      return { ids: a.results.map((x) => x.id), partial: a.partial };
    };
    // A budget spent by the first link: one link per check, in turn.
    expect(await ids({ set, budgetMs: 1e-9 })).toEqual({ ids: [1], partial: true });
    expect(await ids({ budgetMs: 1e-9 })).toEqual({ ids: [2], partial: true });
    expect(await ids({ budgetMs: 1e-9 })).toEqual({ ids: [3], partial: true });
    expect(await ids({})).toEqual({ ids: [1, 2, 3], partial: undefined });
  });

  it('caps a transcript tail at 1 MiB, newest kept', async () => {
    const r = await start();
    r.send(HELLO);
    // 400 prompts of 8 KiB: more than 1 MiB of visible messages.
    const big = 'x'.repeat(8 * 1024);
    const body = Array.from({ length: 400 }, (_, i) => claudeUser(`${i} ${big}`)).join('');
    const file = writeClaude(r.node.roots.claude, body);
    const answer = (
      await r.ask('tail', { provider: 'claude', ref: { kind: 'file', path: file }, limit: 500 })
    ).result as { messages: { text: string }[] };
    const size = answer.messages.reduce((n, m) => n + JSON.stringify(m).length, 0);
    expect(size).toBeLessThanOrEqual(1024 * 1024);
    expect(size).toBeGreaterThan(900 * 1024);
    expect(answer.messages.at(-1)?.text.startsWith('399 ')).toBe(true);
    expect(answer.messages.length).toBeLessThan(400);
  });

  it.each([
    [
      'a 10 MiB frame',
      () => Buffer.concat([Buffer.from([0, 0xa0, 0, 0]), Buffer.alloc(64)]),
      'over the 4 MiB limit',
    ],
    [
      'a frame of garbage',
      () => Buffer.concat([Buffer.from([0, 0, 0, 9]), Buffer.from('{garbage!')]),
      'is not JSON',
    ],
    ['a wrong protocol version', () => encodeFrame({ type: 'hello', protocol: 99 }), 'protocol 99'],
  ])('refuses %s with a clear error and reads nothing of it', async (_what, bytes, message) => {
    const r = await start();
    r.child.stdin.write(bytes());
    expect(await r.exit).toBe(2);
    const error = r.frames.find((f) => f.type === 'error');
    expect(error).toMatchObject({ type: 'error', code: 'protocol' });
    expect(String(error?.message)).toContain(message);
    expect(r.stderr()).toContain(message);
  });

  it('refuses "continue" without --allow-continue', async () => {
    const r = await start();
    r.send(HELLO);
    const a = await r.ask('continue', { provider: 'claude', threadId: CLAUDE_ID, text: 'hi' });
    expect(a.error).toMatchObject({ code: 'continue_disabled' });
    expect(String((a.error as { message: string }).message)).toContain('--allow-continue');
  });
});
