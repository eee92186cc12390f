// One phase of the side-by-side benchmark on Sightline, through the gateway contract, in its own
// process (as reference-phase.mjs is): tsx sightline-phase.ts <phase> <dataDir> <result.json>.
// The workloads are the reference's, count for count.
import fs from 'node:fs';
import { createGateway } from '../../../electron/gateway/index';
import { silentLogger } from '../../helpers/logger';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

function phase(name: string, dataDir: string): Record<string, number> {
  if (name === 'sweepRestart') {
    const t0 = performance.now();
    const gw = createGateway({ dataDir, autoStart: false, logger: silentLogger }); // the sweep runs inside
    const openAndSweepMs = performance.now() - t0;
    let noticesRequeued = 0;
    for (let j = 0; j < 50; j++) noticesRequeued += gw.notices.peek(`agent:main:subagent:sw${j}`).length;
    gw.close();
    return { openAndSweepMs, noticesRequeued };
  }
  const gw = createGateway({ dataDir, autoStart: false, logger: silentLogger });
  try {
    if (name === 'append') {
      const targets = Array.from({ length: 100 }, (_, i) => `agent:main:subagent:t${i}`);
      const watchers = (i: number) => [0, 1, 2].map((w) => `agent:main:subagent:w${w}-t${i}`);
      targets.forEach((t, i) => {
        gw.sessions.create({ key: t });
        for (const w of watchers(i)) {
          gw.sessions.create({ key: w });
          if (!gw.state.registerWatch(w, t)) throw new Error('watch refused');
        }
      });
      const n = 20_000;
      const t0 = performance.now();
      for (let i = 0; i < n; i++) {
        const e = gw.state.record({
          sessionKey: targets[i % 100]!,
          kind: 'human_direct_message',
          actorType: 'human',
          summary: 'human message via bench',
        });
        if (!e) throw new Error('append not recorded');
      }
      const ms = performance.now() - t0;
      let noticesQueued = 0;
      targets.forEach((_, i) => watchers(i).forEach((w) => (noticesQueued += gw.notices.peek(w).length)));
      return { eventsPerSec: Math.round((n / ms) * 1000), noticesQueued };
    }
    if (name === 'changesSince') {
      const key = 'agent:main:subagent:log';
      gw.sessions.create({ key });
      let since = 0;
      for (let i = 0; i < 50_000; i++) {
        const e = gw.state.record({
          sessionKey: key,
          kind: 'compacted',
          actorType: 'system',
          summary: 'session compacted',
        });
        if (i === 25_000) since = e!.sequence;
      }
      const us: number[] = [];
      let returned = 0;
      for (let q = 0; q < 1000; q++) {
        const t = performance.now();
        returned = gw.state.changesSince(key, since, { limit: 200 }).events.length;
        us.push((performance.now() - t) * 1000);
      }
      return { medianUs: median(us), returned };
    }
    if (name === 'sweepSetup') {
      const watchers = Array.from({ length: 50 }, (_, i) => `agent:main:subagent:sw${i}`);
      const targets = Array.from({ length: 20 }, (_, i) => `agent:main:subagent:st${i}`);
      for (const k of [...watchers, ...targets]) gw.sessions.create({ key: k });
      for (const w of watchers) for (const t of targets) gw.state.registerWatch(w, t);
      for (const t of targets)
        gw.state.record({
          sessionKey: t,
          kind: 'human_direct_message',
          actorType: 'human',
          summary: 'human message via bench',
        });
      return {};
    }
  } finally {
    gw.close();
  }
  throw new Error(`unknown phase ${name}`);
}

const [name, dataDir, out] = process.argv.slice(2);
fs.writeFileSync(out!, JSON.stringify(phase(name!, dataDir!)));
