// `sightline node` (issue 19.1): a headless process that serves this machine's catalog to a
// gateway over its standard input and output (the node protocol, gateway/nodes/protocol.ts),
// logging to stderr only. It owns no state database; its only file is its id.
//
//   node sightline-node.mjs --stdio [--claude-root P] [--codex-root P] [--opencode-root P]
//        [--pi-root P] [--allow-continue] [--data-dir D]
//   npm run node -- --stdio …          (from a clone)
import os from 'node:os';
import { PROVIDER_MODULES } from '../gateway/catalog/providers';
import { resolveCatalogRoots } from '../gateway/catalog/roots';
import { EXIT, FrameReader, MAGIC, PROTOCOL, encodeFrame, type Answer } from '../gateway/nodes/protocol';
import { defaultDataDir, nodeId } from './identity';
import { errorText, wireError } from './errors';
import { createNodeService } from './service';
import { loadNodeSqlite } from './sqlite';

const USAGE = `usage: sightline node --stdio [--claude-root P] [--codex-root P] [--opencode-root P] [--pi-root P] [--allow-continue] [--data-dir D]`;

interface Args {
  roots: Record<string, string>;
  allowContinue: boolean;
  dataDir?: string;
}

function parseArgs(argv: string[]): Args {
  const out: Args = { roots: {}, allowContinue: false };
  let stdio = false;
  const ids = new Set(PROVIDER_MODULES.map((m) => m.id as string));
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined || v === '') throw new Error(`${a} needs a value\n${USAGE}`);
      return v;
    };
    const root = /^--([a-z0-9-]+)-root$/.exec(a);
    if (a === '--stdio') stdio = true;
    else if (a === '--allow-continue') out.allowContinue = true;
    else if (a === '--data-dir') out.dataDir = value();
    else if (root && ids.has(root[1]!)) out.roots[root[1]!] = value();
    else throw new Error(`unknown argument ${JSON.stringify(a)}\n${USAGE}`);
  }
  if (!stdio)
    throw new Error(`--stdio is required (the node speaks on its standard input and output)\n${USAGE}`);
  return out;
}

async function main(): Promise<void> {
  // Standard output carries frames only: anything printed by mistake goes to stderr.
  console.log = console.error;
  console.info = console.error;
  const major = Number(process.versions.node.split('.')[0]);
  if (!(major >= 20)) {
    process.stderr.write(`sightline node needs Node.js 20 or newer; this is ${process.version}\n`);
    process.exit(EXIT.oldNode);
  }
  let args: Args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${errorText(err)}\n`);
    process.exit(EXIT.protocol);
  }
  const service = createNodeService({
    nodeId: nodeId(args.dataDir ?? defaultDataDir()),
    name: os.hostname(),
    providers: PROVIDER_MODULES,
    roots: resolveCatalogRoots(args.roots),
    sqlite: await loadNodeSqlite(),
    allowContinue: args.allowContinue,
    env: process.env,
  });

  const send = (msg: unknown) => {
    let frame: Buffer;
    try {
      frame = encodeFrame(msg);
    } catch (err) {
      const id = (msg as { id?: unknown }).id;
      frame = encodeFrame({ type: 'res', id, ok: false, error: { code: 'failed', message: errorText(err) } });
    }
    process.stdout.write(frame);
  };
  const fatal = (message: string) => {
    process.stderr.write(`sightline node: ${message}\n`);
    process.stdout.write(encodeFrame({ type: 'error', code: 'protocol', message }), () =>
      process.exit(EXIT.protocol),
    );
    process.stdin.pause();
  };

  process.stdout.write(MAGIC);
  send(service.hello);
  const reader = new FrameReader({ magic: false });
  let greeted = false;
  let dead = false;
  process.stdin.on('data', (chunk: Buffer) => {
    if (dead) return;
    let frames: Record<string, unknown>[];
    try {
      frames = reader.push(chunk);
    } catch (err) {
      dead = true;
      return fatal(`refused: ${errorText(err)}`);
    }
    for (const f of frames) {
      if (!greeted) {
        if (f.type !== 'hello' || f.protocol !== PROTOCOL) {
          dead = true;
          const theirs = typeof f.protocol === 'number' ? `protocol ${f.protocol}` : 'no protocol';
          const fix =
            typeof f.protocol === 'number' && f.protocol < PROTOCOL
              ? 'the gateway is older than this node: update Sightline'
              : "update this node to the gateway's version";
          return fatal(
            `refused: the first message must be a hello of protocol ${PROTOCOL} (got ${theirs}; ${fix})`,
          );
        }
        greeted = true;
        continue;
      }
      const id = f.id;
      if (f.type !== 'req' || typeof id !== 'number' || typeof f.op !== 'string') {
        dead = true;
        return fatal('refused: a request needs type "req", a numeric id and an op');
      }
      // Not awaited in turn: a continue (a CLI run) never holds up a probe.
      service.handle(f.op, f.args).then(
        (result) => send({ type: 'res', id, ok: true, result } satisfies Answer),
        (err: unknown) => send({ type: 'res', id, ok: false, error: wireError(err) } satisfies Answer),
      );
    }
  });
  process.stdin.on('end', () => process.exit(0));
  process.stdout.on('error', () => process.exit(0));
}

void main();
