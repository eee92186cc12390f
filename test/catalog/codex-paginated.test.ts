// Today's Codex (0.171.0, paginated history): the person's prompt is an `event_msg`
// `item_completed` whose item is a `UserMessage`, mirrored by a `response_item` user message;
// injected context arrives as user/developer `response_item` messages. The real rollout in
// test/fixtures/tools/codex was written by @openai/codex 0.171.0 itself (two prompts: `codex exec`,
// then `codex exec resume`).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WINDOW_BYTES } from '../../electron/gateway/catalog/kit/jsonl-probe';
import { humanTurns, line, makeHarness, rng, type Harness } from './helpers';

const REAL = path.resolve(__dirname, '../fixtures/tools/codex/sessions');
// The one rollout the real-tools suite wrote (test/tools; refreshed with SIGHTLINE_TOOLS_FIXTURES=1).
const REL = (fs.readdirSync(REAL, { recursive: true }) as string[]).filter((f) => f.endsWith('.jsonl'))[0]!;
const data = fs.readFileSync(path.join(REAL, REL));
const rows = data
  .toString('utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as { timestamp: string; type: string; payload: Record<string, unknown> });
const META = rows[0]!.payload as { id: string; cwd: string; timestamp: string; history_mode?: string };
const ID = META.id;
const KEY = `agent:main:adopted:codex:${ID}`;
const PROMPTS = rows.filter((r) => (r.payload.item as { type?: string } | undefined)?.type === 'UserMessage');

let h: Harness | undefined;
afterEach(() => {
  h?.cleanup();
  h = undefined;
});

/** The first `n` lines of the real rollout. */
function head(n: number): Buffer {
  let cut = 0;
  for (let i = 0; i < n; i++) cut = data.indexOf(10, cut) + 1;
  return data.subarray(0, cut);
}

function adoptAt(lines: number): string {
  if (!h) throw new Error('no harness');
  const file = path.join(h.roots.codex, REL);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, head(lines));
  h.catalog.adopt({ provider: 'codex', threadId: ID });
  return file;
}

function userItem(id: string, text: string, turn = 'turn-1', extra: Record<string, unknown> = {}): string {
  return line({
    timestamp: '2026-12-03T09:00:00.000Z',
    ordinal: 40,
    type: 'event_msg',
    payload: {
      type: 'item_completed',
      thread_id: ID,
      turn_id: turn,
      item: { type: 'UserMessage', id, content: [{ type: 'text', text, text_elements: [] }], ...extra },
    },
  });
}

describe('Codex 0.171.0 rollouts (paginated history)', () => {
  it('has the real rollout: paginated, two UserMessage items (rows 13 and 19 of 20), no user_message event', () => {
    expect(rows).toHaveLength(20);
    expect(META.history_mode).toBe('paginated');
    expect(PROMPTS.map((r) => rows.indexOf(r) + 1)).toEqual([13, 19]);
    expect(rows.filter((r) => r.payload.type === 'user_message')).toHaveLength(0);
    expect(rows.filter((r) => r.type === 'world_state')).toHaveLength(1);
  });

  it('a prompt typed after adoption counts once (not once per representation), in uneven chunks', async () => {
    h = makeHarness();
    const file = adoptAt(13); // up to and including the first prompt's completed item
    const rand = rng(7);
    let pos = head(13).length;
    while (pos < data.length) {
      const end = Math.min(data.length, pos + 1 + Math.floor(rand() * 900));
      fs.appendFileSync(file, data.subarray(pos, end));
      pos = end;
      await h.catalog.tick();
    }
    await h.catalog.tick();
    expect(humanTurns(h.events, KEY)).toEqual({ events: 1, turns: 1 });
    expect(h.events.find((e) => e.kind === 'human_direct_message')).toMatchObject({
      summary: 'human message via codex',
      occurredAt: Date.parse(PROMPTS[1]!.timestamp),
    });
  });

  it('injected context and instructions never count: the whole session after session_meta is two prompts', async () => {
    h = makeHarness();
    const file = adoptAt(1);
    fs.appendFileSync(file, data.subarray(head(1).length));
    await h.catalog.tick();
    expect(humanTurns(h.events, KEY)).toEqual({ events: 1, turns: 2 });
    await h.catalog.tick();
    expect(humanTurns(h.events, KEY)).toEqual({ events: 1, turns: 2 });
  });

  it('lists the session with its first prompt as the title and imports both prompts, not the context', () => {
    h = makeHarness();
    adoptAt(20);
    const entry = h.catalog.list().find((e) => e.threadId === ID)!;
    expect(entry).toMatchObject({
      title: 'Summarise the README in this folder',
      cwd: META.cwd,
      createdAt: Date.parse(META.timestamp),
    });
    expect(h.imported.get(KEY)).toEqual([
      { role: 'user', text: 'Summarise the README in this folder' },
      { role: 'user', text: 'Now list the TODO comments' },
    ]);
  });

  it('the same completed item written twice counts once, within a check and across checks', async () => {
    h = makeHarness();
    const file = adoptAt(20);
    fs.appendFileSync(file, userItem('item-a', 'first') + userItem('item-a', 'first'));
    await h.catalog.tick();
    fs.appendFileSync(file, userItem('item-a', 'first') + userItem('item-b', 'second'));
    await h.catalog.tick();
    // Same item id in another turn is another prompt (Codex keys completed items by turn and id).
    fs.appendFileSync(file, userItem('item-a', 'again', 'turn-2'));
    await h.catalog.tick();
    expect(humanTurns(h.events, KEY)).toEqual({ events: 3, turns: 3 });
  });

  it('a text Sightline sent itself is an echo; an image-only prompt still counts', async () => {
    h = makeHarness();
    const file = adoptAt(20);
    h.catalog.rememberOwnText(KEY, 'Run  the tests\n');
    fs.appendFileSync(file, userItem('x1', 'Run the tests'));
    await h.catalog.tick();
    expect(humanTurns(h.events, KEY).turns).toBe(0);
    fs.appendFileSync(
      file,
      line({
        timestamp: '2026-12-03T09:01:00.000Z',
        type: 'event_msg',
        payload: {
          type: 'item_completed',
          turn_id: 't9',
          item: { type: 'UserMessage', id: 'img', content: [{ type: 'local_image', path: '/tmp/a.png' }] },
        },
      }),
    );
    await h.catalog.tick();
    expect(humanTurns(h.events, KEY).turns).toBe(1);
  });

  it('other completed items (agent messages, plans) and user-role context rows never count', async () => {
    h = makeHarness();
    const file = adoptAt(20);
    const item = (type: string) =>
      line({
        timestamp: '2026-12-03T09:02:00.000Z',
        type: 'event_msg',
        payload: { type: 'item_completed', turn_id: 't', item: { type, id: type, text: 'x' } },
      });
    fs.appendFileSync(file, item('AgentMessage') + item('Plan') + item('HookPrompt'));
    // The environment context row of the real rollout, appended again: context, not the person.
    const ctx = data
      .toString('utf8')
      .split('\n')
      .find((l) => l.includes('environments.environment_context'))!;
    fs.appendFileSync(file, `${ctx}\n`);
    await h.catalog.tick();
    expect(humanTurns(h.events, KEY).turns).toBe(0);
  });

  it('an item_completed prompt longer than the 1 MiB window counts once, across checks', async () => {
    h = makeHarness();
    const file = adoptAt(20);
    fs.appendFileSync(file, userItem('big', 'y'.repeat(WINDOW_BYTES * 2)) + userItem('big', 'duplicate'));
    for (let i = 0; i < 5; i++) await h.catalog.tick();
    expect(humanTurns(h.events, KEY)).toEqual({ events: 1, turns: 1 });
    expect(fs.statSync(file).size).toBe(
      (h.db.prepare('SELECT marker_offset FROM catalog_upstream_links').get() as { marker_offset: number })
        .marker_offset,
    );
  });
});
