// Issue 4: every real transcript (claude, codex, pi v3) copied up to its first user line,
// adopted, the rest appended in uneven chunks (some cut mid-line), ticked until nothing
// changes, gives exactly its expected count (sum of turns).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adoptedKey, makeEnv, ofKind, turnsOf, type Env, type Gw } from './helpers';

const REAL = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/corpora/real');
interface ExpFile {
  path: string;
  tool: 'claude' | 'codex' | 'pi';
  role: string;
  lines: number;
  expected: {
    firstUserLine: number | null;
    humanActivityAfterFirstUserLine?: number;
    userMessagesAfterFirstUserLine?: number;
  };
}
const expected = JSON.parse(fs.readFileSync(path.join(REAL, 'expected.json'), 'utf8')) as {
  files: ExpFile[];
};
const files = expected.files.filter((f) => f.role === 'session' && !f.path.startsWith('pi-v1/'));
const rootOf = { claude: 'claude/projects', codex: 'codex/sessions', pi: 'pi/sessions' } as const;

function threadIdOf(f: ExpFile, buf: Buffer): string {
  const first = JSON.parse(buf.subarray(0, buf.indexOf(10)).toString('utf8'));
  if (f.tool === 'claude') return path.basename(f.path, '.jsonl');
  if (f.tool === 'codex') return first.payload.id;
  return first.id;
}

// deterministic uneven chunking
function* chunks(buf: Buffer, seed: number) {
  let x = seed;
  const rnd = () => (x = (x * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  let pos = 0;
  while (pos < buf.length) {
    const r = rnd();
    const size =
      r < 0.3
        ? 1 + Math.floor(rnd() * 200)
        : r < 0.8
          ? 1 + Math.floor(rnd() * 60_000)
          : 1 + Math.floor(rnd() * 700_000);
    yield buf.subarray(pos, Math.min(buf.length, pos + size));
    pos += size;
  }
}

describe('catalog: the real corpus through adopt + monitor', () => {
  let env: Env;
  let gw: Gw;
  const plan: { f: ExpFile; key: string; dest: string; rest: Buffer; want: number; threadId: string }[] = [];

  beforeAll(() => {
    env = makeEnv();
    for (const f of files) {
      const buf = fs.readFileSync(path.join(REAL, f.path));
      let cut = 0;
      for (let i = 0; i < f.expected.firstUserLine!; i++) cut = buf.indexOf(10, cut) + 1;
      const rel = path.relative(rootOf[f.tool], f.path);
      const dest = path.join(env.roots[f.tool], rel);
      fs.mkdirSync(path.dirname(dest), { recursive: true });
      fs.writeFileSync(dest, buf.subarray(0, cut));
      const threadId = threadIdOf(f, buf);
      const want = f.expected.humanActivityAfterFirstUserLine ?? f.expected.userMessagesAfterFirstUserLine!;
      plan.push({ f, key: adoptedKey(f.tool, threadId), dest, rest: buf.subarray(cut), want, threadId });
    }
    gw = env.open();
  });
  afterAll(() => env.cleanup());

  it('lists every session of the prefixes (7 claude, 8 codex, 2 pi)', () => {
    const rows = gw.catalog.list() as { provider: string; threadId: string }[];
    for (const p of plan)
      expect(
        rows.filter((r) => r.provider === p.f.tool && r.threadId === p.threadId),
        p.f.path,
      ).toHaveLength(1);
    expect(rows.length).toBe(plan.length);
  });

  it('counts exactly the expected human activity per file', async () => {
    for (const p of plan) gw.catalog.adopt({ provider: p.f.tool, threadId: p.threadId });
    const iters = plan.map((p, i) => chunks(p.rest, 7 + i * 31));
    let live = plan.length;
    while (live > 0) {
      live = 0;
      plan.forEach((p, i) => {
        const n = iters[i]!.next();
        if (!n.done) {
          fs.appendFileSync(p.dest, n.value);
          live++;
        }
      });
      env.clock.t += 60_000;
      await gw.catalog.tick();
    }
    const sum = () =>
      plan.map((p) => ofKind(gw, p.key, 'human_direct_message').reduce((a, e) => a + turnsOf(e), 0));
    let prev = sum();
    for (let i = 0; i < 8; i++) {
      env.clock.t += 60_000;
      await gw.catalog.tick();
      const cur = sum();
      if (i >= 3 && cur.join() === prev.join()) break;
      prev = cur;
    }
    const got = Object.fromEntries(plan.map((p, i) => [p.f.path, prev[i]]));
    const want = Object.fromEntries(plan.map((p) => [p.f.path, p.want]));
    expect(got).toEqual(want);
    for (const p of plan) {
      for (const e of ofKind(gw, p.key, 'human_direct_message')) {
        expect(e.actorType).toBe('human');
        expect(e.summary).toBe(`human message via ${p.f.tool}`);
        if (e.payload?.turns !== undefined) expect(e.payload.turns).toBeGreaterThan(1);
      }
    }
  }, 30_000);

  it('row by row: appending one line per check records an event exactly at each counted line', async () => {
    const env2 = makeEnv();
    try {
      const small = expected.files.filter(
        (f) => f.role === 'session' && !f.path.startsWith('pi-v1/') && f.lines <= 100,
      ) as (ExpFile & { expected: { humanActivityLines?: number[]; userMessageLines?: number[] } })[];
      expect(small.length).toBeGreaterThanOrEqual(4);
      const g = env2.open();
      for (const f of small) {
        const buf = fs.readFileSync(path.join(REAL, f.path));
        const lines: Buffer[] = [];
        for (let pos = 0; pos < buf.length;) {
          const nl = buf.indexOf(10, pos);
          lines.push(buf.subarray(pos, nl + 1));
          pos = nl + 1;
        }
        const first = f.expected.firstUserLine!;
        const dest = path.join(env2.roots[f.tool], path.relative(rootOf[f.tool], f.path));
        fs.mkdirSync(path.dirname(dest), { recursive: true });
        fs.writeFileSync(dest, Buffer.concat(lines.slice(0, first)));
        const threadId = threadIdOf(f, buf);
        g.catalog.adopt({ provider: f.tool, threadId });
        const key = adoptedKey(f.tool, threadId);
        const counted = (f.expected.humanActivityLines ?? f.expected.userMessageLines ?? []).filter(
          (n) => n > first,
        );
        const hits: number[] = [];
        for (let n = first + 1; n <= lines.length; n++) {
          const before = ofKind(g, key, 'human_direct_message').length;
          fs.appendFileSync(dest, lines[n - 1]!);
          env2.clock.t += 60_000;
          await g.catalog.tick();
          if (ofKind(g, key, 'human_direct_message').length > before) hits.push(n);
        }
        expect(hits, f.path).toEqual(counted);
      }
    } finally {
      env2.cleanup();
    }
  }, 30_000);
});
