// Test helpers: a gateway on its own temp data dir (with the shared clock, logger and polling
// helpers re-exported, so a test imports from one place).
import fs from 'node:fs';
import { createGateway, type Gateway, type GatewayOptions } from '../../electron/gateway';
import type { StateEvent } from '../../electron/gateway/types';
import { collectingLogger } from './logger';
import { tempDir } from './temp';

export { FakeClock } from './clock';
export { collectingLogger, type LogLine } from './logger';
export { waitFor } from './poll';
export { tempDir } from './temp';

export interface TestGateway {
  gw: Gateway;
  dataDir: string;
  logger: ReturnType<typeof collectingLogger>;
  restart(overrides?: Partial<GatewayOptions>): Gateway;
  cleanup(): void;
}

export function openTestGateway(opts: Partial<GatewayOptions> = {}): TestGateway {
  const dataDir = opts.dataDir ?? tempDir();
  const logger = collectingLogger();
  const base: GatewayOptions = { dataDir, autoStart: false, logger, ...opts };
  const t: TestGateway = {
    gw: createGateway(base),
    dataDir,
    logger,
    restart(overrides = {}) {
      t.gw.close();
      t.gw = createGateway({ ...base, ...overrides });
      return t.gw;
    },
    cleanup() {
      t.gw.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
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
