// Adding a node (nodes/service.ts): the person's input checked, their consent to a command they
// named, the node reached and its hello and list read, and only then stored. A node that cannot be
// reached, or speaks another protocol, is never half-added.
import { GatewayError } from '../errors';
import type { NodeConnection } from './connection';
import { launchNode, namedCommandLine, NodeStartError, type NodeSpec } from './launch';
import { adopt, checkClaim, hostKeyOf, type NodesCtx } from './live';

export interface NodeAddInput {
  ssh?: string;
  command?: string[];
  nodeCommand?: string[];
  name?: string;
  /** Addition: with ssh and the bundled node file, start it with --allow-continue. */
  allowContinue?: boolean;
}

/** A node that cannot be started is unavailable, with the cause in words (launch.ts). */
function startError<T>(fn: () => T): T {
  const map = (err: unknown): never => {
    if (err instanceof NodeStartError) throw new GatewayError('unavailable', err.message);
    throw err;
  };
  try {
    const r = fn();
    return (r instanceof Promise ? r.catch(map) : r) as T;
  } catch (err) {
    return map(err);
  }
}

function checkInput(input: NodeAddInput): NodeSpec {
  if (typeof input !== 'object' || input === null)
    throw new GatewayError('invalid_argument', 'node input is required');
  const hasSsh = input.ssh !== undefined;
  const hasCommand = input.command !== undefined;
  if (hasSsh === hasCommand)
    throw new GatewayError('invalid_argument', 'Give exactly one of ssh (an SSH destination) and command');
  if (hasCommand && input.nodeCommand !== undefined)
    throw new GatewayError('invalid_argument', 'nodeCommand goes with ssh only');
  if (input.name !== undefined && (typeof input.name !== 'string' || input.name.length > 100))
    throw new GatewayError('invalid_argument', 'name must be a string of at most 100 characters');
  return hasSsh
    ? {
        ssh: input.ssh!,
        ...(input.nodeCommand ? { nodeCommand: input.nodeCommand } : {}),
        ...(input.allowContinue ? { allowContinue: true } : {}),
      }
    : { command: input.command! };
}

/** A command the person named starts a program: they see it and allow it once. */
async function consent(ctx: NodesCtx, s: NodeSpec): Promise<void> {
  const argv = startError(() => namedCommandLine(s, ctx.deps.launch));
  if (argv)
    await ctx.deps.confirm?.(
      {
        kind: 'node',
        title: `Add a node: run this command to reach ${s.ssh ?? 'the node'}`,
        command: { program: argv[0]!, args: argv.slice(1) },
      },
      { remember: `node:${JSON.stringify(argv)}` },
    );
}

/** How many sessions the new node lists (its connection closed when it cannot list). */
async function listed(ctx: NodesCtx, conn: NodeConnection): Promise<number | null> {
  try {
    const got = await conn.request<{ entries?: unknown[] }>('list', {}, ctx.deps.helloTimeoutMs);
    return Array.isArray(got?.entries) ? got.entries.length : null;
  } catch (err) {
    conn.close('list failed');
    throw new GatewayError(
      'unavailable',
      `The node answered but could not list its sessions: ${(err as Error).message}`,
    );
  }
}

/** Reaches the node, reads its hello and lists its sessions; only then is it stored. Its id. */
export async function addNode(ctx: NodesCtx, input: NodeAddInput): Promise<string> {
  const { deps } = ctx;
  const q = deps.repo;
  const s = checkInput(input);
  await consent(ctx, s);
  const { conn, hello } = await startError(() =>
    launchNode(s, { ...deps.launch, helloTimeoutMs: deps.helloTimeoutMs }),
  );
  let hostKey: string | null = null;
  try {
    checkClaim(deps, hello);
    // Reached over SSH, so known_hosts held its key: that key is now part of who it is.
    if (s.ssh) hostKey = await hostKeyOf(deps)(s.ssh);
  } catch (err) {
    conn.close('refused');
    throw err instanceof GatewayError ? err : new GatewayError('unavailable', (err as Error).message);
  }
  const existing = q.get(hello.nodeId);
  if (existing) {
    conn.close('already added');
    throw new GatewayError('invalid_argument', `That machine is already a node: ${existing.name}`);
  }
  const sessions = await listed(ctx, conn);
  if (ctx.closed) {
    conn.close('the gateway is closing');
    throw new GatewayError('unavailable', 'the gateway is closing');
  }
  q.insert({
    id: hello.nodeId,
    name: input.name?.trim() || hello.name,
    ssh: s.ssh ?? null,
    command: s.command ? JSON.stringify(s.command) : null,
    nodeCommand: s.nodeCommand ? JSON.stringify(s.nodeCommand) : null,
    allowContinue: s.allowContinue ? 1 : 0,
    sessions,
    at: deps.now(),
  });
  q.bindKey(hostKey, hello.nodeId);
  ctx.forgetIds();
  adopt(ctx, hello.nodeId, conn, hello);
  deps.emit({ type: 'catalog:changed' });
  deps.logger.info('nodes: node added', { nodeId: hello.nodeId });
  return hello.nodeId;
}
