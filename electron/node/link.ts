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
import { NodeAgents } from './agents';
import { errorText, wireError } from './errors';
import { listenMcp } from './mcp-relay';

export interface Upstream {
  write(b: Buffer): void;
  /** Data, then end (once) when the gateway is gone. */
  on(data: (b: Buffer) => void, end: () => void): void;
}

export interface LinkOptions {
  hello: Frame;
  /**
   * A fresh catalog service for each gateway connection (its watch set is the connection's);
   * `push` sends a frame of its own to that connection (file events, issue 31).
   */
  service(push: (f: Frame) => void): Service;
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

interface Service {
  handle(op: string, args: unknown): Promise<unknown>;
  /** The connection ended: its watchers are released. */
  close?(): void;
}

/** One gateway connection's state: its upstream, its catalog service, where its bytes go. */
interface Conn {
  up: Upstream;
  service: Service;
  reader: FrameReader;
  greeted: boolean;
  dead: boolean;
  /** Set while this process pipes the connection to the process that holds its agents. */
  pipe?: { write(b: Buffer): void; end(): void };
}

export class NodeLink {
  private current: Upstream | undefined;
  private listener: net.Server | undefined;
  private readonly agents: NodeAgents;
  private readonly mcp: { path: string };

  constructor(private readonly o: LinkOptions) {
    fs.mkdirSync(o.runDir, { recursive: true, mode: 0o700 });
    this.agents = new NodeAgents({
      send: (f) => this.send(f),
      mcpRelay: () => ({
        socket: this.mcp.path,
        command: o.self.command,
        args: [...o.self.args, '--mcp-relay'],
      }),
      idle: () => o.exit(0),
    });
    this.mcp = listenMcp(this.socketOf('mcp'), this.agents);
    process.on('exit', () => {
      this.agents.killAll();
      for (const k of ['mcp', 'attach']) fs.rmSync(this.socketOf(k), { force: true });
    });
  }

  private socketOf(kind: string): string {
    return path.join(this.o.runDir, `${kind}-${process.pid}.sock`);
  }

  private send(f: Frame): void {
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
    this.current?.write(frame);
  }

  /** Serves one gateway connection (`greeted`: the hellos were exchanged through another process). */
  serve(up: Upstream, greeted: boolean): void {
    this.current = up;
    const c: Conn = {
      up,
      service: this.o.service((f) => {
        if (this.current === up && !c.dead && !c.pipe) this.send(f);
      }),
      reader: new FrameReader({ magic: false }),
      greeted,
      dead: false,
    };
    if (!greeted) {
      up.write(MAGIC);
      this.send(this.o.hello);
    }
    up.on(
      (chunk) => this.onData(c, chunk),
      () => {
        c.service.close?.();
        if (this.current !== up) return;
        this.current = undefined;
        c.pipe?.end();
        if (this.agents.size() > 0) this.listenAttach();
        this.agents.unlinked();
      },
    );
  }

  private fatal(c: Conn, message: string): void {
    c.dead = true;
    process.stderr.write(`sightline node: ${message}\n`);
    c.up.write(encodeFrame({ type: 'error', code: 'protocol', message }));
    setTimeout(() => this.o.exit(2), 100);
  }

  private onData(c: Conn, chunk: Buffer): void {
    if (c.dead) return;
    if (c.pipe) return c.pipe.write(chunk);
    let frames: Frame[];
    try {
      frames = c.reader.push(chunk);
    } catch (err) {
      return this.fatal(c, `refused: ${errorText(err)}`);
    }
    for (const [i, f] of frames.entries()) {
      // An attach before this frame may have turned the connection into a pipe.
      const pipe = c.pipe as Conn['pipe'];
      if (pipe) return pipe.write(Buffer.concat(frames.slice(i).map(encodeFrame)));
      if (!this.onFrame(c, f)) return;
    }
  }

  /** One frame of the gateway's; false when the connection was refused. */
  private onFrame(c: Conn, f: Frame): boolean {
    if (!c.greeted) {
      if (f.type !== 'hello' || f.protocol !== PROTOCOL) return (this.fatal(c, helloRefusal(f)), false);
      return (c.greeted = true);
    }
    if (f.type === 'in' || f.type === 'mcp') return (this.agents.frame(f), true);
    const id = f.id;
    if (f.type !== 'req' || typeof id !== 'number' || typeof f.op !== 'string')
      return (this.fatal(c, 'refused: a request needs type "req", a numeric id and an op'), false);
    if (f.op === 'agent.attach' && this.agents.size() === 0) return (this.pipeToHolder(c, f), true);
    const mine = () => this.current === c.up;
    this.handle(f.op, f.args, c.service).then(
      (result) => mine() && this.send({ type: 'res', id, ok: true, result } satisfies Answer),
      (err: unknown) =>
        mine() && this.send({ type: 'res', id, ok: false, error: wireError(err) } satisfies Answer),
    );
    return true;
  }

  /** Until it is known which process holds the agents, what follows waits; then it goes there. */
  private pipeToHolder(c: Conn, f: Frame): void {
    const held: Buffer[] = [];
    c.pipe = { write: (b: Buffer) => void held.push(b), end: () => undefined };
    void this.attachElsewhere(f, c.up).then((to) => {
      c.pipe = to;
      for (const b of held) {
        if (to) to.write(b);
        else this.onData(c, b);
      }
    });
  }

  /** Another node process's gateway came back: this process serves it through that socket. */
  private listenAttach(): void {
    this.listener = net.createServer((s) => {
      const reader = new FrameReader({ magic: false });
      s.on('error', () => s.destroy());
      const onData = (chunk: Buffer) => {
        let f: Frame | undefined;
        try {
          f = reader.push(chunk)[0];
        } catch {
          return void s.destroy();
        }
        if (!f) return;
        s.off('data', onData);
        this.attachHere(s, f);
      };
      s.on('data', onData);
    });
    this.listener.listen(this.socketOf('attach'));
  }

  private attachHere(s: net.Socket, f: Frame): void {
    const tokens = isObject(f.tokens) ? f.tokens : {};
    if (f.type !== 'attach' || !this.agents.holds(tokens))
      return void s.end(encodeFrame({ type: 'refused' }));
    const r = this.agents.attach(tokens, isObject(f.seqs) ? f.seqs : {});
    this.listener?.close();
    this.listener = undefined;
    fs.rmSync(this.socketOf('attach'), { force: true });
    s.write(encodeFrame({ type: 'attached', attached: r.attached, gone: r.gone }));
    this.serve(socketUpstream(s), true);
    for (const frame of r.replays) this.send(frame);
  }

  /** This process has none of them: an earlier one of the same gateway may (its socket). */
  private async attachElsewhere(f: Frame, up: Upstream): Promise<net.Socket | undefined> {
    const args = isObject(f.args) ? f.args : {};
    const tokens = isObject(args.tokens) ? args.tokens : {};
    const answer = (result: unknown) => up.write(encodeFrame({ type: 'res', id: f.id, ok: true, result }));
    const mine = path.basename(this.socketOf('attach'));
    const others = fs.readdirSync(this.o.runDir).filter((n) => /^attach-\d+\.sock$/.test(n) && n !== mine);
    for (const name of others) {
      const piped = await this.tryAttach(path.join(this.o.runDir, name), args, answer, up);
      if (piped) return piped;
    }
    answer({ attached: [], gone: Object.keys(tokens) });
    return undefined;
  }

  /** Connects to one earlier process; on `attached` this process becomes a pipe to it. */
  private tryAttach(file: string, args: Frame, answer: (r: unknown) => void, up: Upstream) {
    return new Promise<net.Socket | undefined>((resolve) => {
      const s = net.connect(file);
      const reader = new FrameReader({ magic: false });
      const fail = () => {
        s.destroy();
        resolve(undefined);
      };
      s.on('error', (err: NodeJS.ErrnoException) => {
        if (err.code === 'ECONNREFUSED') fs.rmSync(file, { force: true }); // a process that is gone
        fail();
      });
      s.on('connect', () => s.write(encodeFrame({ type: 'attach', tokens: args.tokens, seqs: args.seqs })));
      const onData = (chunk: Buffer) => {
        let frames: Frame[];
        try {
          frames = reader.push(chunk);
        } catch {
          return fail();
        }
        if (frames.length === 0) return;
        s.off('data', onData);
        if (frames[0]!.type !== 'attached') return fail();
        answer({ attached: frames[0]!.attached, gone: frames[0]!.gone });
        for (const f of frames.slice(1)) up.write(encodeFrame(f));
        s.on('data', (b: Buffer) => up.write(b));
        s.on('close', () => this.o.exit(0));
        resolve(s);
      };
      s.on('data', onData);
    });
  }

  private async handle(op: string, args: unknown, service: Conn['service']): Promise<unknown> {
    const a = isObject(args) ? args : {};
    const agents = this.agents;
    switch (op) {
      case 'agent.folder':
        return agents.folder(a);
      case 'agent.grace':
        return agents.grace(a);
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
        setImmediate(() => r.replays.forEach((f) => this.send(f)));
        return { attached: r.attached, gone: r.gone };
      }
      default:
        return service.handle(op, args);
    }
  }
}

function helloRefusal(f: Frame): string {
  const theirs = typeof f.protocol === 'number' ? `protocol ${f.protocol}` : 'no protocol';
  const fix =
    typeof f.protocol === 'number' && f.protocol < PROTOCOL
      ? 'the gateway is older than this node: update Sightline'
      : "update this node to the gateway's version";
  return `refused: the first message must be a hello of protocol ${PROTOCOL} (got ${theirs}; ${fix})`;
}
