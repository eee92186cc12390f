// Acceptance harness: drives the gateway only through its programmatic contract.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createGateway } from '../../../electron/gateway';
import { FakeClock } from '../../helpers/clock';

export type GW = ReturnType<typeof createGateway>;

export const T0 = 1_764_680_000_000; // fixed fake epoch
export const DAY = 24 * 60 * 60 * 1000;
export const MAIN = 'agent:main:main';

export interface Env {
  dir: string;
  clock: { t: number };
  now: () => number;
  gw: GW;
  /** Moves the fake clock (retention, windows); nothing scheduled runs. */
  advance(ms: number): void;
  /** With `timers: 'fake'`: moves the clock and runs the gateway timers that fall due. */
  tick(ms: number): void;
  restart(): GW;
  close(): void;
}

/**
 * A gateway on its own folders with a fake clock. Its timers are real (the contract's default)
 * unless `timers: 'fake'`, when they run only as the test ticks the clock.
 */
export function openEnv(opts: { timers?: 'real' | 'fake' } = {}): Env {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sl-accept-'));
  const roots = {
    claude: path.join(dir, 'roots', 'claude'),
    codex: path.join(dir, 'roots', 'codex'),
    opencode: path.join(dir, 'roots', 'opencode'),
    pi: path.join(dir, 'roots', 'pi'),
  };
  for (const r of Object.values(roots)) fs.mkdirSync(r, { recursive: true });
  const clock = new FakeClock(T0);
  const now = clock.now;
  const dataDir = path.join(dir, 'data');
  const scheduler = opts.timers === 'fake' ? { scheduler: clock } : {};
  const make = () => createGateway({ dataDir, now, autoStart: false, catalogRoots: roots, ...scheduler });
  let closed = false;
  const env: Env = {
    dir,
    clock,
    now,
    gw: make(),
    advance(ms) {
      clock.advance(ms);
    },
    tick(ms) {
      clock.tick(ms);
    },
    restart() {
      env.gw.close();
      env.gw = make();
      return env.gw;
    },
    close() {
      if (closed) return;
      closed = true;
      try {
        env.gw.close();
      } catch {
        /* already closed */
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return env;
}

export function ensureSession(gw: GW, key: string, parentKey?: string) {
  return gw.sessions.get(key) ?? gw.sessions.create(parentKey ? { key, parentKey } : { key });
}

export function contextKeyFor(target: string): string {
  return 'session-state:' + Buffer.from(target, 'utf8').toString('hex');
}

export function noticeText(target: string, since: number): string {
  return `Session "${target}" changed (other actor). Reconcile before acting: session_status sessionKey "${target}" changesSince ${since}.`;
}

export function stateEntries(gw: GW, key: string) {
  return gw.notices.peek(key).filter((e) => (e.contextKey ?? '').startsWith('session-state:'));
}

/** Record a notify-eligible human event on a target. */
export function humanEvent(gw: GW, target: string, extra: Record<string, unknown> = {}) {
  const ev = gw.state.record({
    sessionKey: target,
    kind: 'human_direct_message',
    actorType: 'human',
    summary: 'human message via desktop',
    payload: { channel: 'desktop' },
    ...extra,
  } as Parameters<GW['state']['record']>[0]);
  if (!ev) throw new Error('record returned undefined');
  return ev;
}

export function logEvent(
  gw: GW,
  target: string,
  kind: string,
  summary: string,
  extra: Record<string, unknown> = {},
) {
  return gw.state.record({
    sessionKey: target,
    kind,
    actorType: 'system',
    summary,
    ...extra,
  } as unknown as Parameters<GW['state']['record']>[0]);
}

export { waitFor } from '../../helpers/poll';

/** Finds every string in a JSON-ish value matching a regex. */
export function findStrings(v: unknown, re: RegExp, out: string[] = []): string[] {
  if (typeof v === 'string') {
    if (re.test(v)) out.push(v);
  } else if (Array.isArray(v)) v.forEach((x) => findStrings(x, re, out));
  else if (v && typeof v === 'object') Object.values(v).forEach((x) => findStrings(x, re, out));
  return out;
}

/** Rows of a sessions_list result: the first array of objects found in details. */
export function listRows(details: unknown): Record<string, unknown>[] {
  if (Array.isArray(details)) return details as Record<string, unknown>[];
  if (details && typeof details === 'object') {
    for (const v of Object.values(details)) {
      if (Array.isArray(v) && v.every((x) => x && typeof x === 'object'))
        return v as Record<string, unknown>[];
    }
  }
  return [];
}

export function rowKey(row: Record<string, unknown>): string | undefined {
  for (const k of ['key', 'sessionKey']) if (typeof row[k] === 'string') return row[k] as string;
  return undefined;
}
