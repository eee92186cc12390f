// Acceptance harness: drives the gateway only through its programmatic contract.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { createGateway } from '../../../electron/gateway';
import { FakeClock, openTestGateway, T0 } from '../../helpers/gateway';

export type GW = ReturnType<typeof createGateway>;

export { DAY, MAIN, T0 } from '../../helpers/spec';

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
 * A gateway on its own folders with a fake clock (the one harness, test/helpers/gateway.ts). Its
 * timers are real (the contract's default) unless `timers: 'fake'`, when they run only as the test
 * ticks the clock.
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
  const t = openTestGateway({
    dataDir: path.join(dir, 'data'),
    clock,
    fakeTimers: opts.timers === 'fake',
    catalogRoots: roots,
    removes: dir,
  });
  return {
    dir,
    clock,
    now: clock.now,
    get gw() {
      return t.gw;
    },
    advance: (ms) => void clock.advance(ms),
    tick: (ms) => void clock.tick(ms),
    restart: () => t.restart(),
    close: () => t.cleanup(),
  };
}

export function ensureSession(gw: GW, key: string, parentKey?: string) {
  return gw.sessions.get(key) ?? gw.sessions.create(parentKey ? { key, parentKey } : { key });
}

export { contextKeyOf as contextKeyFor, noticeText } from '../../helpers/spec';

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
