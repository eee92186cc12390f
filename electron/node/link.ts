// One node process and its gateway link (issues 19, 30): frames in and out over an upstream — its
// standard input and output, or, after a dropped link, the socket a later node process of the
// same gateway attached through. While no gateway is connected and agents run, the process stays
// for their grace and listens on `<data dir>/run/attach-<pid>.sock` (a folder only this user may
// enter); a new node process asked to attach connects there and becomes a plain pipe between its
// gateway and this process, which goes on serving (agents and catalog) as before.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { FrameReader, MAGIC, PROTOCOL, encodeFrame, isObject, type Answer } from '../gateway/nodes/protocol';
import type { Frame } from '../gateway/nodes/replay';
import { createNodeAgents } from './agents';
import { errorText, wireError } from './errors';
import { listenMcp } from './mcp-relay';

export interface Upstream {
  write(b: Buffer): void;
  /** Data, then end (once) when the gateway is gone. */
  on(data: (b: Buffer) => void, end: () => void): void;
}

export interface LinkOptions {
  hello: Frame;
  /** A fresh catalog service for each gateway connection (its watch set is the connection's). */
  service(): { handle(op: string, args: unknown): Promise<unknown> };
  runDir: string;
  /** What runs this node file (for the agents' MCP relay). */
  self: { command: string; args: string[] };
  exit(code: number): void;
}

export function stdioUpstream(): Upstream {
  return {
    write: (b) => {
      if (process.stdout.writable) process.stdout.write(b);
    },
    on(data, end) {
      let ended = false;
      const once = () => (ended ? undefined : ((ended = true), end()));
      process.stdin.on('data', data);
      process.stdin.on('end', once);
      process.stdin.on('error', once);
      process.stdout.on('error', once);
    },
  };
}

function socketUpstream(s: net.Socket): Upstream {
  return {
    write: (b) => void (s.writable && s.write(b)),
    on(data, end) {
      s.on('data', data);
      s.once('close', end);
      s.on('error', () => s.destroy());
    },
  };
}

export function serveLink(o: LinkOptions) {
  fs.mkdirSync(o.runDir, { recursive: true, mode: 0o700 });
  const socketOf = (kind: string) => path.join(o.runDir, `${kind}-${process.pid}.sock`);
  let current: Upstream | undefined;
  let listener: net.Server | undefined;
  const send = (f: Frame) => {
    let frame: Buffer;
    try {
      frame = encodeFrame(f);
    } catch (err) {
      frame = encodeFrame({
        type: 'res',
        id: f.id,
        ok: false,
        error: { code: 'failed', message: errorText(err) },
      });
    }
    current?.write(frame);
  };
  const agents = createNodeAgents({
    send,
    mcpRelay: () => ({
      socket: mcp.path,
      command: o.self.command,
      args: [...o.self.args, '--mcp-relay'],
    }),
    idle: () => o.exit(0),
  });
  const mcp = listenMcp(socketOf('mcp'), agents);
  process.on('exit', () => {
    agents.killAll();
    for (const k of ['mcp', 'attach']) fs.rmSync(socketOf(k), { force: true });
  });

  /** Another node process's gateway came back: this process serves it through that socket. */
  function listenAttach(): void {
    listener = net.createServer((s) => {
      const reader = new FrameReader({ magic: false });
      let done = false;
      s.on('error', () => s.destroy());
      s.on('data', (chunk: Buffer) => {
        if (done) return;
        let f: Frame | undefined;
        try {
          f = reader.push(chunk)[0];
        } catch {
          return void s.destroy();
        }
        if (!f) return;
        done = true;
        s.removeAllListeners('data');
        const tokens = isObject(f.tokens) ? f.tokens : {};
        if (f.type !== 'attach' || !agents.holds(tokens)) return void s.end(encodeFrame({ type: 'refused' }));
        const r = agents.attach(tokens, isObject(f.seqs) ? f.seqs : {});
        listener?.close();
        listener = undefined;
        fs.rmSync(socketOf('attach'), { force: true });
        s.write(encodeFrame({ type: 'attached', attached: r.attached, gone: r.gone }));
        serve(socketUpstream(s), true);
        for (const frame of r.replays) send(frame);
      });
    });
    listener.listen(socketOf('attach'));
  }

  /** This process has none of them: an earlier one of the same gateway may (its socket). */
  async function attachElsewhere(f: Frame, up: Upstream): Promise<net.Socket | undefined> {
    const args = isObject(f.args) ? f.args : {};
    const tokens = isObject(args.tokens) ? args.tokens : {};
    const answer = (result: unknown) => up.write(encodeFrame({ type: 'res', id: f.id, ok: true, result }));
    const others = fs
      .readdirSync(o.runDir)
      .filter((n) => /^attach-\d+\.sock$/.test(n) && n !== path.basename(socketOf('attach')));
    for (const name of others) {
      const piped = await tryAttach(path.join(o.runDir, name), args, answer, up);
      if (piped) return piped;
    }
    answer({ attached: [], gone: Object.keys(tokens) });
    return undefined;
  }

  function serve(up: Upstream, greeted: boolean): void {
    current = up;
    const service = o.service();
    const reader = new FrameReader({ magic: false });
    let pipe: { write(b: Buffer): void; end(): void } | undefined;
    let dead = false;
    const fatal = (message: string) => {
      dead = true;
      process.stderr.write(`sightline node: ${message}\n`);
      up.write(encodeFrame({ type: 'error', code: 'protocol', message }));
      setTimeout(() => o.exit(2), 100);
    };
    if (!greeted) {
      up.write(MAGIC);
      send(o.hello);
    }
    const onData = (chunk: Buffer): void => {
      if (dead) return;
      if (pipe) return void pipe.write(chunk);
      let frames: Frame[];
      try {
        frames = reader.push(chunk);
      } catch (err) {
        return fatal(`refused: ${errorText(err)}`);
      }
      for (const [i, f] of frames.entries()) {
        if (pipe) return void pipe.write(Buffer.concat(frames.slice(i).map(encodeFrame)));
        if (!greeted) {
          if (f.type !== 'hello' || f.protocol !== PROTOCOL) return fatal(helloRefusal(f));
          greeted = true;
          continue;
        }
        if (f.type === 'in' || f.type === 'mcp') {
          agents.frame(f);
          continue;
        }
        const id = f.id;
        if (f.type !== 'req' || typeof id !== 'number' || typeof f.op !== 'string')
          return fatal('refused: a request needs type "req", a numeric id and an op');
        if (f.op === 'agent.attach' && agents.size() === 0) {
          // Until it is known who holds the agents, what follows waits.
          const held: Buffer[] = [];
          pipe = { write: (b: Buffer) => void held.push(b), end: () => undefined };
          void attachElsewhere(f, up).then((to) => {
            pipe = to;
            for (const b of held) to ? to.write(b) : onData(b);
          });
          continue;
        }
        handle(f.op, f.args, service).then(
          (result) =>
            current === up ? send({ type: 'res', id, ok: true, result } satisfies Answer) : undefined,
          (err: unknown) =>
            current === up
              ? send({ type: 'res', id, ok: false, error: wireError(err) } satisfies Answer)
              : undefined,
        );
      }
    };
    up.on(onData, () => {
      if (current !== up) return;
      current = undefined;
      pipe?.end();
      if (agents.size() > 0) listenAttach();
      agents.unlinked();
    });
  }

  /** Connects to one earlier process; on `attached` this process becomes a pipe to it. */
  function tryAttach(
    file: string,
    args: Frame,
    answer: (r: unknown) => void,
    up: Upstream,
  ): Promise<net.Socket | undefined> {
    return new Promise((resolve) => {
      const s = net.connect(file);
      const reader = new FrameReader({ magic: false });
      let settled = false;
      const fail = () => {
        if (settled) return;
        settled = true;
        s.destroy();
        resolve(undefined);
      };
      s.on('error', (err: NodeJS.ErrnoException) => {
        if (err.code === 'ECONNREFUSED') fs.rmSync(file, { force: true }); // a process that is gone
        fail();
      });
      s.on('connect', () => s.write(encodeFrame({ type: 'attach', tokens: args.tokens, seqs: args.seqs })));
      s.on('data', (chunk: Buffer) => {
        if (settled) return;
        let frames: Frame[];
        try {
          frames = reader.push(chunk);
        } catch {
          return fail();
        }
        const first = frames[0];
        if (!first) return;
        if (first.type !== 'attached') return fail();
        settled = true;
        s.removeAllListeners('data');
        answer({ attached: first.attached, gone: first.gone });
        for (const f of frames.slice(1)) up.write(encodeFrame(f));
        s.on('data', (b: Buffer) => up.write(b));
        s.on('close', () => o.exit(0));
        resolve(s);
      });
    });
  }

  async function handle(
    op: string,
    args: unknown,
    service: { handle(op: string, args: unknown): Promise<unknown> },
  ) {
    const a = isObject(args) ? args : {};
    switch (op) {
      case 'agent.prepare':
        return agents.prepare(a);
      case 'agent.start':
        return agents.start(a);
      case 'agent.signal':
        return agents.signal(a);
      case 'agent.stop':
        return agents.stop(a);
      case 'agent.read':
        return agents.read(a);
      case 'agent.write':
        return agents.write(a);
      case 'agent.terminal':
        return agents.terminal(a);
      case 'agent.attach': {
        // This very process holds them (a gateway that reconnected before the link was seen down).
        const r = agents.attach(isObject(a.tokens) ? a.tokens : {}, isObject(a.seqs) ? a.seqs : {});
        setImmediate(() => r.replays.forEach(send));
        return { attached: r.attached, gone: r.gone };
      }
      default:
        return service.handle(op, args);
    }
  }

  return { serve };
}

function helloRefusal(f: Frame): string {
  const theirs = typeof f.protocol === 'number' ? `protocol ${f.protocol}` : 'no protocol';
  const fix =
    typeof f.protocol === 'number' && f.protocol < PROTOCOL
      ? 'the gateway is older than this node: update Sightline'
      : "update this node to the gateway's version";
  return `refused: the first message must be a hello of protocol ${PROTOCOL} (got ${theirs}; ${fix})`;
}
