// Codex rollouts: discovery of plain, compressed (.jsonl.zst) and archived rollouts, sub-agent
// rollouts skipped, and deletion detected only when plain, .zst and archived copies are all gone.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { humanTurns, line, linkRow, makeHarness, zstdStore, type Harness } from './helpers';
import { CODEX_ID, codexRolloutName, codexUserMessage, writeCodex } from './fixtures';

const KEY = `agent:main:adopted:codex:${CODEX_ID}`;
let h: Harness;
afterEach(() => h.cleanup());

function archive(): string {
  const dir = path.join(path.dirname(h.roots.codex), 'archived_sessions');
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

describe('Codex discovery', () => {
  it('lists plain, compressed and archived rollouts, prefers the plain file, skips sub-agents', () => {
    h = makeHarness();
    writeCodex(h.roots.codex);
    const ids = [
      '019cb3f2-0000-7000-8000-000000000001',
      '019cb3f2-0000-7000-8000-000000000002',
      '019cb3f2-0000-7000-8000-000000000003',
    ];
    // A compressed twin of the live rollout must not produce a second entry.
    const live = path.join(h.roots.codex, '2026', '03', '02', codexRolloutName());
    fs.writeFileSync(`${live}.zst`, zstdStore(fs.readFileSync(live)));
    const cold = writeCodex(h.roots.codex, '', ids[0]);
    fs.writeFileSync(`${cold}.zst`, zstdStore(fs.readFileSync(cold)));
    fs.rmSync(cold);
    const arch = writeCodex(h.roots.codex, '', ids[1]);
    fs.renameSync(arch, path.join(archive(), path.basename(arch)));
    writeCodex(h.roots.codex, '', ids[2], {
      subagent: { thread_spawn: { parent_thread_id: CODEX_ID, depth: 1 } },
    });
    fs.writeFileSync(
      path.join(path.dirname(h.roots.codex), 'session_index.jsonl'),
      line({ id: ids[1], thread_name: 'Archived work', updated_at: '2026-03-02T10:00:00Z' }),
    );
    const list = h.catalog.list().filter((e) => e.provider === 'codex');
    expect(list.map((e) => e.threadId).sort()).toEqual([CODEX_ID, ids[0], ids[1]].sort());
    expect(list.find((e) => e.threadId === CODEX_ID)).toMatchObject({
      title: 'add a regression test',
      cwd: '/home/ana/src/ledger-api',
      createdAt: Date.parse('2026-03-02T09:20:11.377Z'),
    });
    expect(list.find((e) => e.threadId === ids[1])!.title).toBe('Archived work');
  });
});

describe('Codex monitor', () => {
  it('counts new user_message rows of the local rollout', async () => {
    h = makeHarness();
    const file = writeCodex(h.roots.codex);
    h.catalog.adopt({ provider: 'codex', threadId: CODEX_ID });
    fs.appendFileSync(file, codexUserMessage('next'));
    await h.catalog.tick();
    expect(humanTurns(h.events, KEY)).toEqual({ events: 1, turns: 1 });
  });

  it('a rollout compressed to .jsonl.zst is not missing; its decompressed copy continues at the same offset', async () => {
    h = makeHarness();
    const file = writeCodex(h.roots.codex);
    h.catalog.adopt({ provider: 'codex', threadId: CODEX_ID });
    const body = fs.readFileSync(file);
    fs.writeFileSync(`${file}.zst`, zstdStore(body));
    fs.rmSync(file);
    for (let i = 0; i < 4; i++) await h.catalog.tick();
    expect(h.events.filter((e) => e.kind === 'upstream_missing')).toHaveLength(0);
    // Codex decompresses before appending: a new inode with the same bytes plus the new turn.
    fs.writeFileSync(file, Buffer.concat([body, Buffer.from(codexUserMessage('back again'))]));
    fs.rmSync(`${file}.zst`);
    await h.catalog.tick();
    expect(humanTurns(h.events, KEY)).toEqual({ events: 1, turns: 1 });
  });

  it('adopting a cold rollout baselines at its decompressed size', async () => {
    h = makeHarness();
    const file = writeCodex(h.roots.codex);
    const body = fs.readFileSync(file);
    fs.writeFileSync(`${file}.zst`, zstdStore(body));
    fs.rmSync(file);
    h.catalog.adopt({ provider: 'codex', threadId: CODEX_ID });
    expect(linkRow(h.db, KEY)).toMatchObject({ marker_offset: body.length, marker_inode: null });
    expect(h.imported.get(KEY)).toEqual([{ role: 'user', text: 'add a regression test' }]);
    fs.writeFileSync(file, Buffer.concat([body, Buffer.from(codexUserMessage('new'))]));
    await h.catalog.tick();
    expect(humanTurns(h.events, KEY).turns).toBe(1);
  });

  it('an archived rollout is not missing; gone everywhere, it is missing after three checks', async () => {
    h = makeHarness();
    const file = writeCodex(h.roots.codex);
    h.catalog.adopt({ provider: 'codex', threadId: CODEX_ID });
    const archived = path.join(archive(), path.basename(file));
    fs.renameSync(file, archived);
    for (let i = 0; i < 3; i++) await h.catalog.tick();
    expect(h.events.filter((e) => e.kind === 'upstream_missing')).toHaveLength(0);
    fs.writeFileSync(`${archived}.zst`, zstdStore(fs.readFileSync(archived)));
    fs.rmSync(archived);
    for (let i = 0; i < 3; i++) await h.catalog.tick();
    expect(h.events.filter((e) => e.kind === 'upstream_missing')).toHaveLength(0);
    fs.rmSync(`${archived}.zst`);
    for (let i = 0; i < 3; i++) await h.catalog.tick();
    expect(h.events.filter((e) => e.kind === 'upstream_missing')).toEqual([
      expect.objectContaining({
        summary: 'upstream missing via codex',
        payload: { channel: 'codex' },
        actorType: 'system',
      }),
    ]);
    expect(linkRow(h.db, KEY)).toBeUndefined();
  });
});
