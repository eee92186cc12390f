// One phase of the side-by-side benchmark on the reference implementation (the published
// `openclaw` package), run by peer.bench.ts under the Node 24 it needs:
//   node reference-phase.mjs <dist> <phase> <result.json>
// with OPENCLAW_STATE_DIR / OPENCLAW_CONFIG_PATH pointing at the phase's own folder.
// Plain JavaScript: this process has no TypeScript loader.
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { pathToFileURL } from 'node:url';

// Which chunk of the bundled dist/ holds each function (chunk files are `<prefix>-<8 chars>.mjs`).
const WANTED = {
  recordSessionStateEvent: 'session-state-events',
  registerSessionStateWatch: 'session-state-events',
  listSessionStateEventsSince: 'session-state-events',
  sweepSessionStateWatchNotices: 'session-state-events',
  peekSystemEventEntries: 'system-events',
  upsertSessionEntryCore: 'session-accessor.sqlite-entry',
  publishSystemEventStoreConfig: 'session-accessor.sqlite-entry',
  openOpenClawStateDatabase: 'openclaw-state-db',
};

/** local name → exported name, from a chunk's closing `export { a as b, c };`. */
function exportNames(text) {
  const start = text.lastIndexOf('export {');
  const out = new Map();
  if (start < 0) return out;
  const body = text.slice(start + 'export {'.length, text.indexOf('}', start));
  for (const part of body.split(',')) {
    const [local, exported] = part.trim().split(/\s+as\s+/);
    if (local) out.set(local, exported ?? local);
  }
  return out;
}

function relativeImports(text) {
  return [...text.matchAll(/(?:from\s*|import\s*)["']\.\/([^"']+\.mjs)["']/g)].map((m) => m[1]);
}

/**
 * Resolves every wanted function to a chunk and its export letter. Duplicated chunks exist in the
 * bundle: the one reachable from the session-state chunk's imports wins, so that the notice queue
 * peeked here is the very module instance the appends write into.
 */
async function load(dist) {
  const files = fs.readdirSync(dist).filter((f) => f.endsWith('.mjs'));
  const cache = new Map();
  const read = (f) => {
    if (!cache.has(f)) cache.set(f, fs.readFileSync(path.join(dist, f), 'utf8'));
    return cache.get(f);
  };
  const withPrefix = (prefix) =>
    files.filter((f) => f.startsWith(`${prefix}-`) && /^[\w-]{8}\.mjs$/.test(f.slice(prefix.length + 1)));
  const defines = (text, name) => new RegExp(`(?:function\\*?|const|let|class)\\s+${name}\\b`).test(text);
  const entry = withPrefix(WANTED.recordSessionStateEvent).find((f) =>
    defines(read(f), 'recordSessionStateEvent'),
  );
  if (!entry) throw new Error(`no chunk defines recordSessionStateEvent in ${dist}`);
  const reachable = new Set([entry]);
  for (const f of reachable)
    for (const g of relativeImports(read(f))) if (files.includes(g)) reachable.add(g);
  const fns = {};
  for (const [name, prefix] of Object.entries(WANTED)) {
    const candidates = withPrefix(prefix).filter((f) => exportNames(read(f)).has(name));
    const ranked = [
      ...candidates.filter((f) => reachable.has(f) && defines(read(f), name)),
      ...candidates.filter((f) => reachable.has(f)),
      ...candidates.filter((f) => defines(read(f), name)),
      ...candidates,
    ];
    if (!ranked.length) throw new Error(`no ${prefix}-*.mjs chunk exports ${name}`);
    const mod = await import(pathToFileURL(path.join(dist, ranked[0])).href);
    fns[name] = mod[exportNames(read(ranked[0])).get(name)];
    if (typeof fns[name] !== 'function') throw new Error(`${name} in ${ranked[0]} is not a function`);
  }
  return fns;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

async function phase(f, name) {
  f.publishSystemEventStoreConfig({});
  if (name === 'append') {
    const targets = Array.from({ length: 100 }, (_, i) => `agent:main:subagent:bench-t${i}`);
    targets.forEach((target, i) => {
      for (let j = 0; j < 3; j++) {
        if (
          !f.registerSessionStateWatch({
            watcherSessionKey: `agent:main:bench-w${i}-${j}`,
            targetSessionKey: target,
          })
        )
          throw new Error('watch refused');
      }
    });
    const n = 20_000;
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      const e = f.recordSessionStateEvent({
        sessionKey: targets[i % 100],
        agentId: 'main',
        kind: 'human_direct_message',
        actorType: 'human',
        summary: `bench message ${i}`,
      });
      if (!e) throw new Error('append not recorded');
    }
    const ms = performance.now() - t0;
    let queued = 0;
    for (let i = 0; i < 100; i++)
      for (let j = 0; j < 3; j++) queued += f.peekSystemEventEntries(`agent:main:bench-w${i}-${j}`).length;
    return { eventsPerSec: Math.round((n / ms) * 1000), noticesQueued: queued };
  }
  if (name === 'changesSince') {
    const key = 'agent:main:subagent:bench-log';
    let first = 0;
    let last = 0;
    for (let i = 0; i < 50_000; i++) {
      const e = f.recordSessionStateEvent({
        sessionKey: key,
        agentId: 'main',
        kind: 'human_direct_message',
        actorType: 'human',
        summary: `log row ${i}`,
      });
      first ||= e.sequence;
      last = e.sequence;
    }
    const since = first + Math.floor((last - first) / 2);
    const us = [];
    let returned = 0;
    for (let q = 0; q < 1000; q++) {
      const t = performance.now();
      returned = f.listSessionStateEventsSince(key, 'main', since, 200).events.length;
      us.push((performance.now() - t) * 1000);
    }
    return { medianUs: median(us), returned };
  }
  if (name === 'sweepSetup') {
    const watchers = Array.from({ length: 50 }, (_, j) => `agent:main:bench-sweep-w${j}`);
    const targets = Array.from({ length: 20 }, (_, k) => `agent:main:subagent:bench-sweep-t${k}`);
    for (const w of watchers)
      await f.upsertSessionEntryCore(
        { sessionKey: w, agentId: 'main' },
        { sessionId: `s-${w}`, updatedAt: Date.now() },
      );
    for (const w of watchers)
      for (const t of targets) f.registerSessionStateWatch({ watcherSessionKey: w, targetSessionKey: t });
    for (const t of targets)
      f.recordSessionStateEvent({
        sessionKey: t,
        agentId: 'main',
        kind: 'human_direct_message',
        actorType: 'human',
        summary: 'pending',
      });
    return {};
  }
  if (name === 'sweepRestart') {
    const t0 = performance.now();
    f.openOpenClawStateDatabase({});
    f.sweepSessionStateWatchNotices();
    const ms = performance.now() - t0;
    let requeued = 0;
    for (let j = 0; j < 50; j++) requeued += f.peekSystemEventEntries(`agent:main:bench-sweep-w${j}`).length;
    return { openAndSweepMs: ms, noticesRequeued: requeued };
  }
  throw new Error(`unknown phase ${name}`);
}

const [dist, name, out] = process.argv.slice(2);
const result = await phase(await load(dist), name);
fs.writeFileSync(out, JSON.stringify(result));
process.exit(0);
