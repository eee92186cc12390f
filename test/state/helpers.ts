// Shared fixtures for the session-state suite: the one gateway harness (test/helpers/gateway.ts)
// with a FakeClock as clock and scheduler, so nothing the gateway schedules runs unless a test
// ticks it.
import type { Gateway } from '../../electron/gateway/index';
import type { RecordInput } from '../../electron/gateway/types';
import { FakeClock, openTestGateway, T0, type collectingLogger } from '../helpers/gateway';
import { tempDir } from '../helpers/temp';

export { FakeClock } from '../helpers/clock';
export { collectingLogger, type LogLine } from '../helpers/logger';

export { contextKeyOf, DAY, HOUR, MAIN, noticeFor, noticeText, T0 } from '../helpers/spec';

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
  const clock = opts.clock ?? new FakeClock(T0);
  const t = openTestGateway({ dataDir: opts.dir ?? tempDir('sightline-state-'), clock, fakeTimers: true });
  return {
    get gw() {
      return t.gw;
    },
    dir: t.dataDir,
    clock,
    logger: t.logger,
    restart: () => t.restart(),
    dispose: () => t.cleanup(),
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
