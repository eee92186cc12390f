// Starting a child's agent: consent for the exact command, the process (here, or on a paired
// node), initialize and session/new with Sightline's MCP server; its updates, terminals and
// permission questions wired to the session. Started on first use and again after a failure.
import fs from 'node:fs';
import type { AcpChild } from './child';
import type { Live, LiveTable } from './live-table';
import { nodeHost } from './node-host';
import { permissionHook, terminalHooks } from './questions';
import { recordUpdate } from './transcript-updates';

/** The session's agent: the running one, else a fresh one (a failure to start rejects). */
export async function ensureChild(t: LiveTable, key: string, l: Live): Promise<AcpChild> {
  if (l.child) return l.child;
  const { deps } = t;
  // On a node the folder is the node's to check (agent.prepare); here one of its own is made.
  const host = l.node !== undefined ? nodeHost(deps.nodes!, l.node) : undefined;
  if (!host) fs.mkdirSync(l.cwd, { recursive: true });
  const root = host ? l.cwd : fs.realpathSync(l.cwd);
  const mcp = l.mcp;
  // The ACP SDK loads with the first agent (issue 31.3: the gateway starts without it).
  const { AcpChild } = await import('./child');
  l.child = await AcpChild.start({
    profile: l.profile,
    cwd: l.cwd,
    ...(mcp ? { mcpServers: (caps: { http: boolean }) => mcp.servers(key, caps, l.profile.reach) } : {}),
    logger: { warn: (m, f) => deps.logger.warn(`acp: ${m}`, { sessionKey: key, ...(f as object) }) },
    onUpdate: (u) => recordUpdate(t, key, l, u),
    beforeSpawn: (command) =>
      deps.profiles.confirmStart(
        l.profile,
        command,
        key,
        host?.node !== undefined ? { id: l.node!, name: host.node } : undefined,
      ),
    ...(host ? { host } : {}),
    terminals: terminalHooks(t, key, l, root),
    onPermission: permissionHook(t, key, l),
  });
  return l.child;
}
