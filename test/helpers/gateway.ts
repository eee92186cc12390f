// The one gateway harness: a gateway on its own temp data dir, with a collecting logger and, when
// asked, a FakeClock as its clock (and scheduler). Every suite builds its gateways here (the state
// suite's openHarness and the acceptance suites' envs are views of it); the spec's constants,
// clock, logger and polling helpers are re-exported so a test imports from one place.
import fs from 'node:fs';
import { createGateway, type Gateway, type GatewayOptions } from '../../electron/gateway';
import type { StateEvent } from '../../electron/gateway/types';
import { FakeClock } from './clock';
import { collectingLogger } from './logger';
import { T0 } from './spec';
import { tempDir } from './temp';

export { FakeClock } from './clock';
export { collectingLogger, type LogLine } from './logger';
export { waitFor } from './poll';
export { contextKeyOf, DAY, HOUR, MAIN, noticeFor, noticeText, T0 } from './spec';
export { tempDir } from './temp';

export interface TestGatewayOptions extends Partial<GatewayOptions> {
  /**
   * The gateway's clock. `'fake'` (or a FakeClock) makes `now` a FakeClock starting at the spec's
   * T0; with `fakeTimers` it is also the scheduler, so nothing scheduled runs unless the test ticks.
   */
  clock?: FakeClock | 'fake';
  fakeTimers?: boolean;
  /** What cleanup() removes (default: the data dir), for a harness whose data dir sits inside it. */
  removes?: string;
}

export interface TestGateway {
  gw: Gateway;
  dataDir: string;
  /** The FakeClock, when the options asked for one. */
  clock: FakeClock | undefined;
  logger: ReturnType<typeof collectingLogger>;
  /** close() then a new gateway on the same data dir, clock and logger (options may change). */
  restart(overrides?: Partial<GatewayOptions>): Gateway;
  /** Closes the gateway (once; a gateway closed already is fine) and removes its folders. */
  cleanup(): void;
}

export function openTestGateway(opts: TestGatewayOptions = {}): TestGateway {
  const { clock: asked, fakeTimers, removes, ...rest } = opts;
  const dataDir = rest.dataDir ?? tempDir();
  const clock = asked === 'fake' ? new FakeClock(T0) : asked;
  const logger = collectingLogger();
  const base: GatewayOptions = {
    dataDir,
    autoStart: false,
    logger,
    ...(clock ? { now: clock.now } : {}),
    ...(clock && fakeTimers ? { scheduler: clock } : {}),
    ...rest,
  };
  let closed = false;
  const t: TestGateway = {
    gw: createGateway(base),
    dataDir,
    clock,
    logger,
    restart(overrides = {}) {
      t.gw.close();
      t.gw = createGateway({ ...base, ...overrides });
      return t.gw;
    },
    cleanup() {
      if (closed) return;
      closed = true;
      try {
        t.gw.close();
      } catch {
        // closed already by the test
      }
      fs.rmSync(removes ?? dataDir, { recursive: true, force: true });
    },
  };
  return t;
}

/** A spawn edge as the runtime makes it: the child session, then `child_spawned` seeding the parent's cursor. */
export function spawnEdge(gw: Gateway, child: string, parent = 'agent:main:main'): StateEvent {
  gw.sessions.create({ key: child, parentKey: parent });
  const event = gw.state.record({
    sessionKey: child,
    kind: 'child_spawned',
    actorType: 'agent',
    actorId: parent,
    summary: 'child session spawned',
    watchers: [parent],
  });
  if (!event) throw new Error(`could not record child_spawned for ${child}`);
  return event;
}
