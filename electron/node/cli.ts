// `sightline node` (issue 19.1): a headless process that serves this machine's catalog to a
// gateway over its standard input and output (the node protocol, gateway/nodes/protocol.ts),
// logging to stderr only. It owns no state database; its only file is its id.
//
//   node sightline-node.mjs --stdio [--claude-root P] [--codex-root P] [--opencode-root P]
//        [--pi-root P] [--allow-continue] [--data-dir D]
//   npm run node -- --stdio …          (from a clone)
//   node sightline-node.mjs --mcp-relay   (an agent's MCP server on this node: mcp-relay.ts)
import os from 'node:os';
import { PROVIDER_MODULES } from '../gateway/catalog/providers';
import { resolveCatalogRoots } from '../gateway/catalog/roots';
import path from 'node:path';
import { EXIT } from '../gateway/nodes/protocol';
import { defaultDataDir, nodeId } from './identity';
import { errorText } from './errors';
import { NodeLink, stdioUpstream } from './link';
import { runMcpRelay } from './mcp-relay';
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
  if (process.argv[2] === '--mcp-relay') return runMcpRelay(process.env);
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
  const dataDir = args.dataDir ?? defaultDataDir();
  const options = {
    nodeId: nodeId(dataDir),
    name: os.hostname(),
    providers: PROVIDER_MODULES,
    roots: resolveCatalogRoots(args.roots),
    sqlite: await loadNodeSqlite(),
    allowContinue: args.allowContinue,
    env: process.env,
  };
  const { hello } = createNodeService(options);
  // A dropped SSH link must not end the agents' grace (sshd may hang up on its children).
  process.on('SIGHUP', () => undefined);
  new NodeLink({
    hello: { ...hello, agents: true },
    service: (push) => createNodeService(options, push),
    runDir: path.join(dataDir, 'run'),
    self: { command: process.execPath, args: [...process.execArgv, process.argv[1]!] },
    exit: (code) => process.exit(code),
  }).serve(stdioUpstream(), false);
}

void main();
