// The transcripts the real tools wrote (test/fixtures/tools, see its README), replayed offline:
// adopted as they stood before the second prompt, the rest appended, the second prompt is exactly
// one turn, and the live messages show it once. The real-tools suite (test/tools) runs the tools
// themselves; this keeps their formats covered without them.
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { humanTurns, makeHarness, type Harness } from './helpers';

const FIX = path.resolve(__dirname, '../fixtures/tools');
const FIRST = 'Summarise the README in this folder';
const SECOND = 'Now list the TODO comments';

let h: Harness | undefined;
afterEach(() => {
  h?.cleanup();
  h = undefined;
});

const JSONL = [
  { tool: 'claude', dir: 'projects' },
  { tool: 'codex', dir: 'sessions' },
  { tool: 'pi', dir: 'sessions' },
] as const;

describe.each(JSONL)('$tool fixture', ({ tool, dir }) => {
  const rel = (fs.readdirSync(path.join(FIX, tool, dir), { recursive: true }) as string[]).filter((f) =>
    f.endsWith('.jsonl'),
  );

  it('is one transcript with both prompts', () => {
    expect(rel).toHaveLength(1);
    const text = fs.readFileSync(path.join(FIX, tool, dir, rel[0]!), 'utf8');
    expect(text).toContain(FIRST);
    expect(text).toContain(SECOND);
  });

  it('adopted before the second prompt: the rest is one turn, shown once', async () => {
    h = makeHarness({ live: true });
    const data = fs.readFileSync(path.join(FIX, tool, dir, rel[0]!), 'utf8');
    const lines = data.split('\n');
    const cut = lines.findIndex((l) => l.includes(SECOND));
    const file = path.join(h.roots[tool], rel[0]!);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(
      file,
      lines
        .slice(0, cut)
        .map((l) => `${l}\n`)
        .join(''),
    );
    const entry = h.catalog.list().find((e) => e.provider === tool)!;
    expect(entry.title).toBe(FIRST);
    const key = h.catalog.adopt({ provider: tool, threadId: entry.threadId }).key;
    expect(h.imported.get(key)!.filter((m) => m.role === 'user')).toEqual([{ role: 'user', text: FIRST }]);
    fs.appendFileSync(file, lines.slice(cut).join('\n'));
    await h.catalog.tick();
    await h.catalog.tick();
    expect(humanTurns(h.events, key)).toEqual({ events: 1, turns: 1 });
    expect(
      h.live
        .get(key)!
        .filter((m) => m.role === 'user')
        .map((m) => m.text),
    ).toEqual([SECOND]);
  });
});

describe('opencode fixture', () => {
  it('adopted before the second prompt: the rest is one turn, shown once', async () => {
    h = makeHarness({ live: true });
    const db = path.join(h.roots.opencode, 'opencode.db');
    fs.copyFileSync(path.join(FIX, 'opencode', 'opencode.db'), db);
    const w = new Database(db);
    try {
      // Take the second prompt and what followed it out, adopt, then put them back.
      const second = w
        .prepare(
          `SELECT m.time_created AS t FROM message m JOIN part p ON p.message_id = m.id WHERE p.data LIKE ?`,
        )
        .get(`%${SECOND}%`) as { t: number };
      const msgs = w.prepare('SELECT * FROM message WHERE time_created >= ?').all(second.t) as Record<
        string,
        unknown
      >[];
      const ids = msgs.map((m) => m.id as string);
      const parts = w
        .prepare(`SELECT * FROM part WHERE message_id IN (${ids.map(() => '?').join(',')})`)
        .all(...ids) as Record<string, unknown>[];
      w.prepare(`DELETE FROM part WHERE message_id IN (${ids.map(() => '?').join(',')})`).run(...ids);
      w.prepare('DELETE FROM message WHERE time_created >= ?').run(second.t);

      const entry = h.catalog.list().find((e) => e.provider === 'opencode')!;
      const key = h.catalog.adopt({ provider: 'opencode', threadId: entry.threadId }).key;
      // OpenCode 1.18.33 `run` stores the message with quotes around it.
      expect(h.imported.get(key)!.filter((m) => m.role === 'user')).toEqual([
        { role: 'user', text: `"${FIRST}"` },
      ]);
      const put = (table: string, row: Record<string, unknown>) =>
        w
          .prepare(
            `INSERT INTO ${table} (${Object.keys(row).join(',')}) VALUES (${Object.keys(row)
              .map(() => '?')
              .join(',')})`,
          )
          .run(...Object.values(row));
      for (const m of msgs) put('message', m);
      for (const p of parts) put('part', p);
    } finally {
      w.close();
    }
    const key = `agent:main:adopted:opencode:${h.catalog.list().find((e) => e.provider === 'opencode')!.threadId}`;
    await h.catalog.tick();
    await h.catalog.tick();
    expect(humanTurns(h.events, key)).toEqual({ events: 1, turns: 1 });
    expect(
      h.live
        .get(key)!
        .filter((m) => m.role === 'user')
        .map((m) => m.text),
    ).toEqual([`"${SECOND}"`]);
  });
});
