// Child process of crash.test.ts: opens the gateway on a data dir and runs a random workload until
// the parent kills it with SIGKILL. Every line on stdout is written synchronously and only after the
// call it describes returned (E, D), or before a call that may move a cursor (B, P):
//   R                      the gateway is open
//   E <seq> <sessionKey>   an event committed
//   B <watcher> <target> <n>  the next call (or a drain starting now) may set that cursor's L up to n
//   P <keep>               the next prune may delete every sequence below keep
//   D <watcher> <entries>  a drain (acknowledgement) returned
//   N <watcher>            an unrelated notice was queued
//   K                      a catalog check returned
// Usage: SIGHTLINE_CRASH_WORKER=1 node crash-worker.(ts via tsx|bundled cjs) <dataDir> <claudeRoot> <seed> <clockStart>
import fs from 'node:fs';
import path from 'node:path';
import { createGateway } from '../../electron/gateway';
import { createPruner, RETENTION_MS } from '../../electron/gateway/state/prune';
import { decodeNoticeContextKey } from '../../shared/session-keys';
import { CLAUDE_ID, claudeUser } from '../catalog/fixtures';
import { silentLogger } from '../helpers/logger';

export const WATCHERS = ['agent:main:main', 'agent:main:boss1', 'agent:main:boss2'];
export const GHOST = 'agent:main:ghost';
export const CHILDREN = Array.from({ length: 8 }, (_, i) => `agent:main:subagent:c${i}`);
export const ADOPTED = `agent:main:adopted:claude:${CLAUDE_ID}`;
export const ROW_CAP = 400;

const [dataDir, claudeRoot, seedArg, clockArg] = process.argv.slice(2);
if (process.env.SIGHTLINE_CRASH_WORKER === '1' && dataDir && claudeRoot && seedArg && clockArg)
  void main(dataDir, claudeRoot, Number(seedArg), Number(clockArg));

function out(line: string): void {
  fs.writeSync(1, line + '\n');
}

function mulberry32(a: number): () => number {
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function main(dir: string, root: string, seed: number, clockStart: number): Promise<void> {
  setTimeout(() => process.exit(3), 20_000).unref();
  const rnd = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  let t = clockStart;
  const now = () => t;
  const empty = path.join(root, '..', 'none');
  const gw = createGateway({
    dataDir: dir,
    now,
    autoStart: false,
    logger: silentLogger,
    catalogRoots: { claude: root, codex: empty, opencode: empty, pi: empty },
  });
  const nextSeq = () =>
    ((
      gw.db.prepare(`SELECT seq FROM sqlite_sequence WHERE name = 'session_state_events'`).get() as
        { seq: number } | undefined
    )?.seq ?? 0) + 1;
  // Every drain — ours, and the turns the runtime starts when a notice wakes a main session —
  // announces, before it acknowledges, the N each drained target's L may move to.
  gw.events.on((ev) => {
    if (ev.type !== 'notice:drained') return;
    for (const entry of ev.entries) {
      const target = decodeNoticeContextKey(entry.contextKey);
      const c = target ? gw.state.cursor(ev.sessionKey, target) : undefined;
      if (c) out(`B ${ev.sessionKey} ${target} ${c.notified}`);
    }
  });
  const capPrune = createPruner(gw.db, { retentionMs: RETENTION_MS, maxRows: ROW_CAP });
  const parentOf = (child: string) => WATCHERS[1 + (Number(child.slice(-1)) % 2)]!;

  // Set-up is idempotent: every step is repeated on the next start when a kill cut it short.
  for (const w of WATCHERS) if (!gw.sessions.get(w)) gw.sessions.create({ key: w });
  for (const c of CHILDREN) {
    if (gw.sessions.get(c)) continue;
    gw.sessions.create({ key: c, parentKey: parentOf(c) });
    seed_(c);
  }
  if (!gw.state.cursor(WATCHERS[0]!, ADOPTED)) {
    out(`B ${WATCHERS[0]} ${ADOPTED} ${nextSeq()}`);
    gw.catalog.adopt({ provider: 'claude', threadId: CLAUDE_ID });
    out(`E ${gw.state.version(ADOPTED)} ${ADOPTED}`);
  }
  out('R');

  function seed_(child: string): void {
    const parent = parentOf(child);
    out(`B ${parent} ${child} ${nextSeq()}`);
    const e = gw.state.record({
      sessionKey: child,
      kind: 'child_spawned',
      actorType: 'agent',
      actorId: parent,
      summary: 'child session spawned',
      watchers: [parent],
    });
    if (e) out(`E ${e.sequence} ${child}`);
  }

  const transcript = path.join(root, '-home-ana-src-ledger-api', `${CLAUDE_ID}.jsonl`);
  let prompts = 0;
  for (;;) {
    t += 10;
    const r = rnd();
    if (r < 0.5) {
      const target = pick(CHILDREN);
      const explicit = rnd() < 0.2;
      if (explicit) out(`B ${parentOf(target)} ${target} ${gw.state.version(target)}`);
      const e = gw.state.record({
        sessionKey: target,
        kind: rnd() < 0.7 ? 'human_direct_message' : 'goal_changed',
        actorType: rnd() < 0.5 ? 'human' : 'agent',
        ...(rnd() < 0.2 ? { actorId: pick(WATCHERS) } : {}),
        summary: 'workload change',
        ...(explicit ? { watchers: [parentOf(target)] } : {}),
      });
      if (e) out(`E ${e.sequence} ${target}`);
    } else if (r < 0.56) {
      const target = pick(CHILDREN);
      const e = gw.state.record({
        sessionKey: target,
        kind: 'run_completed',
        actorType: 'system',
        summary: 'child run completed',
        watchers: [parentOf(target)],
      });
      if (e) out(`E ${e.sequence} ${target}`);
    } else if (r < 0.6) {
      seed_(pick(CHILDREN));
    } else if (r < 0.66) {
      const watcher = rnd() < 0.15 ? GHOST : pick(WATCHERS);
      const target = pick([...CHILDREN, ADOPTED]);
      out(`B ${watcher} ${target} ${gw.state.version(target)}`);
      gw.state.registerWatch(watcher, target);
    } else if (r < 0.84) {
      const watcher = pick(WATCHERS);
      const drained = gw.notices.drain(watcher);
      out(`D ${watcher} ${drained.length}`);
    } else if (r < 0.88) {
      const watcher = pick(WATCHERS);
      gw.notices.enqueue(watcher, { text: `Build ${Math.floor(rnd() * 5)} finished.` });
      out(`N ${watcher}`);
    } else if (r < 0.9) {
      const count = (gw.db.prepare('SELECT count(*) AS n FROM session_state_events').get() as { n: number })
        .n;
      if (count > ROW_CAP) {
        const keep = (
          gw.db
            .prepare('SELECT sequence FROM session_state_events ORDER BY sequence LIMIT 1 OFFSET ?')
            .get(count - ROW_CAP) as { sequence: number }
        ).sequence;
        out(`P ${keep}`);
      }
      capPrune(now());
      gw.state.prune();
      out('P 0');
    } else if (r < 0.93) {
      fs.appendFileSync(transcript, claudeUser(`upstream prompt ${seed}-${prompts++}`));
      const before = gw.state.version(ADOPTED);
      await gw.catalog.tick();
      for (const e of gw.state.changesSince(ADOPTED, before).events) out(`E ${e.sequence} ${ADOPTED}`);
      out('K');
    }
    // The rest: time passes.
  }
}
