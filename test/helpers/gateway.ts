// Test helpers: a gateway on its own temp data dir, a controllable clock, a collecting logger.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createGateway, type Gateway, type GatewayOptions } from '../../electron/gateway';
import type { Logger, StateEvent } from '../../electron/gateway/types';

export interface LogLine {
  level: 'info' | 'warn' | 'error';
  msg: string;
  fields?: Record<string, unknown>;
}

export function collectingLogger(lines: LogLine[] = []): Logger & { lines: LogLine[] } {
  return {
    lines,
    info: (msg, fields) => void lines.push({ level: 'info', msg, ...(fields ? { fields } : {}) }),
    warn: (msg, fields) => void lines.push({ level: 'warn', msg, ...(fields ? { fields } : {}) }),
    error: (msg, fields) => void lines.push({ level: 'error', msg, ...(fields ? { fields } : {}) }),
  };
}

export class FakeClock {
  constructor(public t = Date.UTC(2026, 11, 2, 12, 0, 0)) {}
  now = (): number => this.t;
  advance(ms: number): number {
    this.t += ms;
    return this.t;
  }
}

export function tempDir(prefix = 'sightline-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

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

/** Polls a condition with real time (the runtime's scripted workers sleep for real). */
export async function until(cond: () => boolean, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
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
