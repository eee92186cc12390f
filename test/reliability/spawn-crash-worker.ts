// Child process of spawn-crash.test.ts: opens the gateway, then spawns one child (native or ACP)
// and dies by SIGKILL right after one chosen write of that spawn (a temporary trigger on the
// table calls a function that kills the process), or, with "none", right after the spawn
// returned. No clean shutdown either way.
// Usage (bundled by the test): SIGHTLINE_SPAWN_CRASH=1 node spawn-crash-worker.cjs <dataDir> <native|acp> <table|none> <agent.mjs>
import fs from 'node:fs';
import { createGateway } from '../../electron/gateway';
import { silentLogger } from '../helpers/logger';

const [dataDir, runtime, table, agentScript] = process.argv.slice(2);
if (process.env.SIGHTLINE_SPAWN_CRASH === '1' && dataDir && runtime && table && agentScript)
  void main(dataDir, runtime, table, agentScript);

function die(): never {
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable');
}

async function main(dir: string, rt: string, crashAfter: string, agent: string) {
  const gw = createGateway({ dataDir: dir, autoStart: false, logger: silentLogger });
  // The first turn must not get anywhere before the kill: the scripted model pauses a minute.
  gw.agents.save({ id: 'main', providerSettings: { stepMs: '60000', steps: '1' } });
  gw.acp.profiles.save({
    id: 'fixture',
    name: 'Fixture',
    command: process.execPath,
    args: [agent],
    env: {},
    allowAgents: true,
  });
  if (crashAfter !== 'none') {
    gw.db.function('crash_now', () => die());
    gw.db.exec(`CREATE TEMP TRIGGER crash AFTER INSERT ON ${crashAfter} BEGIN SELECT crash_now(); END`);
  }
  const result = await gw.tools.call('agent:main:main', 'sessions_spawn', { task: 'crash me', runtime: rt });
  fs.writeSync(1, `${JSON.stringify(result)}\n`);
  die();
}
