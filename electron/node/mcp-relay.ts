// An agent's MCP connection to Sightline from a node (issue 30.1), with no port opened on the
// node: the agent runs this node file with --mcp-relay as its stdio MCP server; the relay connects
// to its node process over a Unix socket in a folder only this user may enter, presents the
// agent's token (from its environment, never a command line), and from then on its bytes travel
// as frames of the agent's channel to the gateway, which hands them to its own MCP shim with the
// session's credential. No Sightline credential ever reaches the node.
import fs from 'node:fs';
import net from 'node:net';

const MAX_TOKEN = 200;

export interface McpTargets {
  /** The agent holding this token: where its relay's bytes go; undefined refuses the relay. */
  mcpConnected(token: string, sock: net.Socket): ((b: Buffer) => void) | undefined;
}

/** The node process's MCP socket: each connection starts with an agent's token and a newline. */
export function listenMcp(file: string, targets: McpTargets): { path: string; close(): void } {
  fs.rmSync(file, { force: true });
  const server = net.createServer((s) => {
    let head = Buffer.alloc(0);
    let forward: ((b: Buffer) => void) | undefined;
    s.on('error', () => s.destroy());
    s.on('data', (chunk: Buffer) => {
      if (forward) return forward(chunk);
      head = Buffer.concat([head, chunk]);
      const nl = head.indexOf(10);
      if (nl < 0) return void (head.length > MAX_TOKEN && s.destroy());
      forward = targets.mcpConnected(head.subarray(0, nl).toString('utf8'), s);
      if (!forward) return void s.destroy();
      if (head.length > nl + 1) forward(head.subarray(nl + 1));
    });
  });
  server.listen(file);
  server.unref();
  return { path: file, close: () => server.close() };
}

/** `--mcp-relay`: stdin to the node process, its answers to stdout. */
export function runMcpRelay(env: NodeJS.ProcessEnv): void {
  const file = env.SIGHTLINE_NODE_MCP;
  const token = env.SIGHTLINE_NODE_MCP_TOKEN;
  if (!file || !token) {
    process.stderr.write('sightline node --mcp-relay: started without its socket and token\n');
    process.exit(2);
  }
  const s = net.connect(file);
  s.on('connect', () => {
    s.write(`${token}\n`);
    process.stdin.pipe(s);
    s.pipe(process.stdout);
  });
  s.on('error', (err) => {
    process.stderr.write(`sightline node --mcp-relay: ${err.message}\n`);
    process.exit(1);
  });
  s.on('close', () => process.exit(0));
  process.stdin.on('end', () => s.end());
}
