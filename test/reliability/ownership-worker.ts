// Child process of ownership.test.ts: one gateway with its real timers (the 1 s shared poll, wakes
// that run heartbeat turns) on a data dir several processes share. It obeys commands on stdin and
// reports on stdout, one line each, written synchronously:
//   R <gatewayId>            the gateway is open
//   K <id> [answer]          command <id> is done
//   E <seq> <target>         an append of the load committed
//   P <watcher> <json>       a drain (the load's or a turn's) starts: [[target, L], …] it will take
//   D <watcher> <json>       that drain returned: [[target, L, L after the acknowledgement], …]
//   F <watcher>              that drain's acknowledgement was refused (another gateway runs it)
//   S <n>                    stale writes refused so far (acknowledgements for others' watchers)
//   X <what>                 a write for a session another gateway runs landed (never expected)
// Every acknowledgement, run and transcript row this connection writes is also audited in the
// database (test_audit), with the gateway that held the session in the same transaction.
// Commands: `<id> create <key>`, `<id> watch <watcher> <target>`, `<id> append <target>`,
// `<id> peek <key>`, `<id> drain <key>`, `<id> load <json>`, `<id> stale <watchers…>`, `<id> quiet`,
// `<id> dump`, `<id> polled` (answered after the gateway's next whole shared-database poll).
// Usage: SIGHTLINE_OWNERSHIP_WORKER=1 node ownership-worker.cjs <dataDir> <emptyRoot>
import fs from 'node:fs';
import readline from 'node:readline';
import { createGateway, NotOwnerError, type Gateway } from '../../electron/gateway';
import { decodeNoticeContextKey, isMainKey } from '../../shared/session-keys';
import { silentLogger } from '../helpers/logger';

interface Load {
  /** Append to a random target every tick (with fan-out to every watcher). */
  append: boolean;
  targets: string[];
  /** Watchers this process drains when it holds them (main sessions are drained by their turns). */
  watchers: string[];
}

const [dataDir, emptyRoot] = process.argv.slice(2);
if (process.env.SIGHTLINE_OWNERSHIP_WORKER === '1' && dataDir && emptyRoot) main(dataDir, emptyRoot);

function out(line: string): void {
  fs.writeSync(1, line + '\n');
}

const noticeL = (text: string) => Number(/changesSince (\d+)\.$/.exec(text)?.[1] ?? NaN);

function audit(gw: Gateway): void {
  const id = gw.ownership.gatewayId;
  const owner = (col: string) =>
    `(SELECT o.gateway_id FROM main.session_owners s JOIN main.owners o ON o.id = s.owner_id WHERE s.session_key = ${col})`;
  const row = (what: string, col: string) =>
    `INSERT INTO main.test_audit (gateway, what, session_key, owner) VALUES ('${id}', '${what}', ${col}, ${owner(col)});`;
  gw.db.exec(`
    CREATE TABLE IF NOT EXISTS main.test_audit (gateway TEXT, what TEXT, session_key TEXT, owner TEXT);
    CREATE TEMP TRIGGER audit_ack AFTER UPDATE OF last_seen ON main.session_watch_cursors
      WHEN new.last_seen != old.last_seen BEGIN ${row('ack', 'new.watcher_key')} END;
    CREATE TEMP TRIGGER audit_run_new AFTER INSERT ON main.runs BEGIN ${row('run', 'new.session_key')} END;
    CREATE TEMP TRIGGER audit_run AFTER UPDATE ON main.runs BEGIN ${row('run', 'new.session_key')} END;
    CREATE TEMP TRIGGER audit_message AFTER INSERT ON main.session_messages
      BEGIN ${row('message', 'new.session_key')} END;
  `);
}

function main(dir: string, empty: string): void {
  setTimeout(() => process.exit(3), 600_000).unref();
  const gw = createGateway({
    dataDir: dir,
    autoStart: true,
    logger: silentLogger,
    catalogRoots: { claude: empty, codex: empty, opencode: empty, pi: empty },
  });
  audit(gw);

  // Every drain (the load's and the turns') is reported before it starts and after it returned.
  const drain = gw.notices.drain.bind(gw.notices);
  gw.notices.drain = (key: string) => {
    const taking = gw.notices.peek(key).flatMap((e) => {
      const target = decodeNoticeContextKey(e.contextKey);
      return target ? [[target, noticeL(e.text)] as const] : [];
    });
    if (taking.length) out(`P ${key} ${JSON.stringify(taking)}`);
    try {
      const entries = drain(key);
      if (taking.length)
        out(`D ${key} ${JSON.stringify(taking.map(([t, l]) => [t, l, gw.state.cursor(key, t)?.lastSeen]))}`);
      return entries;
    } catch (err) {
      if (err instanceof NotOwnerError) out(`F ${key}`);
      throw err;
    }
  };

  // Every shared-database poll the gateway's timer runs is counted: `polled` answers once a whole
  // poll ran after the command arrived (what the test would otherwise sleep a second for).
  const afterPoll: (() => void)[] = [];
  const pollShared = gw.state.pollShared.bind(gw.state);
  gw.state.pollShared = () => {
    try {
      return pollShared();
    } finally {
      for (const done of afterPoll.splice(0)) done();
    }
  };

  let load: Load | undefined;
  let refused = 0;
  const pick = <T>(xs: T[]): T | undefined => xs[Math.floor(Math.random() * xs.length)];
  const step = () => {
    if (!load) return;
    const target = pick(load.targets);
    if (load.append && target) {
      const e = gw.state.record({
        sessionKey: target,
        kind: 'human_direct_message',
        actorType: 'human',
        summary: 'human message via desktop',
      });
      if (e) out(`E ${e.sequence} ${target}`);
      // A write for a watcher another gateway runs must be refused.
      const foreign = pick(load.watchers.filter((w) => !gw.ownership.owns(w)));
      if (foreign) {
        try {
          gw.state.acknowledge(foreign, [target]);
          out(`X acknowledge ${foreign}`);
        } catch (err) {
          if (!(err instanceof NotOwnerError)) throw err;
          if (++refused % 50 === 0) out(`S ${refused}`);
        }
      }
    }
    const mine = pick(load.watchers.filter((w) => !isMainKey(w) && gw.ownership.holds(w)));
    if (mine && Math.random() < 0.5) {
      try {
        gw.notices.drain(mine);
      } catch (err) {
        if (!(err instanceof NotOwnerError)) throw err;
      }
    }
  };
  setInterval(step, 4);

  const answer = (id: string, value?: unknown) =>
    out(`K ${id}${value === undefined ? '' : ' ' + JSON.stringify(value)}`);
  const commands: Record<string, (id: string, args: string[]) => void | Promise<void>> = {
    create: (id, [key]) => answer(id, gw.sessions.create({ key: key! }).key),
    watch: (id, [watcher, target]) => {
      gw.state.registerWatch(watcher!, target!);
      answer(id, gw.state.cursor(watcher!, target!)?.lastSeen);
    },
    append: (id, [target]) =>
      answer(
        id,
        gw.state.record({
          sessionKey: target!,
          kind: 'human_direct_message',
          actorType: 'human',
          summary: 'human message via desktop',
        })?.sequence,
      ),
    peek: (id, [key]) => answer(id, gw.notices.peek(key!)),
    polled: (id) => void afterPoll.push(() => answer(id)),
    drain: (id, [key]) => answer(id, gw.notices.drain(key!)),
    load: (id, [json]) => {
      load = JSON.parse(json!) as Load;
      answer(id);
    },
    quiet: async (id) => {
      load = undefined;
      gw.waker.enableTimers(false); // no trailing wake starts a turn after this
      await gw.runtime.idle();
      out(`S ${refused}`);
      answer(id);
    },
    // Tries to acknowledge for each watcher, as a gateway that may still believe it runs them.
    stale: (id, watchers) => {
      let believed = 0;
      let refused = 0;
      for (const w of watchers) {
        if (gw.ownership.owns(w)) believed++;
        try {
          gw.state.acknowledge(w, load?.targets ?? []);
          out(`X acknowledge ${w}`);
        } catch (err) {
          if (!(err instanceof NotOwnerError)) throw err;
          refused++;
        }
      }
      answer(id, { believed, refused });
    },
    dump: (id) =>
      answer(id, {
        queues: gw.notices.all(),
        held: gw.sessions
          .list()
          .filter((s) => gw.ownership.holds(s.key))
          .map((s) => s.key),
      }),
  };
  readline.createInterface({ input: process.stdin }).on('line', (line) => {
    const [id, name, ...args] = line.split(' ');
    const run = commands[name ?? ''];
    if (!id || !run) return out(`X bad command ${line.slice(0, 80)}`);
    void Promise.resolve(run(id, name === 'load' ? [args.join(' ')] : args)).catch((err: unknown) =>
      answer(id, { error: String(err) }),
    );
  });
  out(`R ${gw.ownership.gatewayId}`);
}
