// Shared fixtures for the session-state suite: a gateway on its own temp data dir whose clock
// (and scheduler: nothing the gateway schedules runs unless a test ticks it) is a FakeClock.
import fs from 'node:fs';
import { createGateway, type Gateway } from '../../electron/gateway/index';
import type { RecordInput } from '../../electron/gateway/types';
import { FakeClock } from '../helpers/clock';
import { collectingLogger } from '../helpers/logger';
import { tempDir } from '../helpers/temp';

export { FakeClock } from '../helpers/clock';
export { collectingLogger, type LogLine } from '../helpers/logger';

export const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
export const HOUR = 60 * 60 * 1000;
export const DAY = 24 * HOUR;

export interface Harness {
  gw: Gateway;
  dir: string;
  clock: FakeClock;
  logger: ReturnType<typeof collectingLogger>;
  /** close() then createGateway on the same dataDir, same clock and logger. */
  restart(): Gateway;
  /** Closes the gateway (stop() cuts short any turn a wake or send started) and removes the data dir. */
  dispose(): void;
}

export function openHarness(opts: { dir?: string; clock?: FakeClock } = {}): Harness {
  const dir = opts.dir ?? tempDir('sightline-state-');
  const clock = opts.clock ?? new FakeClock(T0);
  const logger = collectingLogger();
  const open = () =>
    createGateway({ dataDir: dir, now: clock.now, scheduler: clock, autoStart: false, logger });
  const h: Harness = {
    gw: open(),
    dir,
    clock,
    logger,
    restart() {
      h.gw.close();
      h.gw = open();
      return h.gw;
    },
    dispose() {
      h.gw.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return h;
}

/** The lower-case hex of the UTF-8 bytes of a key, as the spec's context key carries it. */
export function contextKeyOf(target: string): string {
  return `session-state:${Buffer.from(target, 'utf8').toString('hex')}`;
}

export function noticeFor(target: string, changesSince: number): { text: string; contextKey: string } {
  return {
    text: `Session "${target}" changed (other actor). Reconcile before acting: session_status sessionKey "${target}" changesSince ${changesSince}.`,
    contextKey: contextKeyOf(target),
  };
}

/** A notify-eligible human turn on `sessionKey`. */
export function humanTurn(sessionKey: string, extra: Partial<RecordInput> = {}): RecordInput {
  return {
    sessionKey,
    kind: 'human_direct_message',
    actorType: 'human',
    actorId: 'person:ada',
    summary: 'human message via desktop',
    payload: { channel: 'desktop' },
    ...extra,
  };
}

export function count(gw: Gateway, table: string): number {
  return (gw.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
}

export function cursorRows(gw: Gateway): unknown[] {
  return gw.db.prepare('SELECT * FROM session_watch_cursors ORDER BY watcher_key, target_key').all();
}
