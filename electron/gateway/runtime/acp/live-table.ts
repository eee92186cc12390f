// What the gateway holds in memory of its ACP children: one `Live` per session (its profile,
// folder, agent process, prompt chain and queued runs) in one table shared by the pieces of
// `sessions.ts` (start, prompt, questions, control, auth). The table alone decides whether a
// child is still current, so a forgotten or closed one writes nothing, wherever it is asked from.
import type { AuthMethod, McpServer } from '@agentclientprotocol/sdk';
import type { Reach } from '../../../../shared/ipc/reach';
import type { TranscriptStore, NewMessage } from '../../sessions/transcripts';
import type { Consent } from '../../trust/consent';
import type { GatewayEvent, Logger, RunInfo } from '../../types';
import type { AskToSend } from '../ask-to-send';
import type { LiveOutputs } from '../live-output';
import type { Permissions } from '../permissions';
import type { RunLifecycle } from '../run-lifecycle';
import type { AcpChild } from './child';
import { DiffCollector } from './diffs';
import type { NodeAgentPort } from './node-host';
import type { StoredAcpProfile } from './profile-store';
import type { AcpProfiles } from './profiles';

/** Sightline's MCP server for a child's agent: issued when the agent starts, released when it ends. */
export interface AcpMcpHooks {
  /** A credential of the session's own, valid at once (its session may not be committed yet). */
  servers(sessionKey: string, caps: { http: boolean }, reach: Reach): Promise<McpServer[]>;
  release(sessionKey: string): void;
}

export interface AcpSessionsDeps {
  now: () => number;
  logger: Logger;
  emit: (e: GatewayEvent) => void;
  transcripts: TranscriptStore;
  /** Runs start, end and drain the session's notices the same way for every runner. */
  lifecycle: RunLifecycle;
  profiles: AcpProfiles;
  permissions: Permissions;
  consent: Consent;
  /** Where children without a configured working directory get one of their own. */
  workRoot: string;
  /** Streams the agent's output while a prompt runs (live output, issue 17.1). */
  live: Pick<LiveOutputs, 'delta'>;
  /** Sightline's MCP server for the agents. */
  mcp?: AcpMcpHooks;
  /** The person's yes for an agent's message into a session it did not spawn (issue 29.3). */
  askToSend: AskToSend;
  /** The session that spawned `key`, if any. */
  parentOf: (key: string) => string | undefined;
  /** Paired nodes that start agents (issue 30.1); absent: agents run on this machine only. */
  nodes?: NodeAgentPort;
}

export interface Live {
  profile: StoredAcpProfile;
  mcp?: AcpMcpHooks;
  cwd: string;
  /** A paired node's id: the agent runs there, `cwd` is a folder on that machine (issue 30.1). */
  node?: string;
  child?: AcpChild;
  chain: Promise<unknown>;
  inFlight: number;
  buffer: string;
  /** A cancel that arrived while the agent was still starting. */
  cancelRequested: boolean;
  /** The run of the prompt in flight (its output streams under this id). */
  run?: RunInfo;
  /** Runs queued behind it. */
  queue: RunInfo[];
  diffs: DiffCollector;
}

export const newLive = (profile: StoredAcpProfile, cwd: string, mcp?: AcpMcpHooks, node?: string): Live => ({
  profile,
  ...(mcp ? { mcp } : {}),
  cwd,
  ...(node !== undefined ? { node } : {}),
  chain: Promise.resolve(),
  inFlight: 0,
  queue: [],
  buffer: '',
  cancelRequested: false,
  diffs: new DiffCollector(cwd),
});

export type LiveTable = ReturnType<typeof createLiveTable>;

export function createLiveTable(deps: AcpSessionsDeps) {
  const { transcripts, emit } = deps;
  const table = {
    deps,
    live: new Map<string, Live>(),
    /** The `authMethods` each session's last agent offered (see auth-path.ts). */
    authSeen: new Map<string, AuthMethod[]>(),
    // After close() the database is gone: late callbacks from agent processes touch nothing.
    closed: false,
    // A child forgotten (its session reset or deleted) may still stream: that writes nothing.
    current: (key: string, l: Live) => !table.closed && table.live.get(key) === l,

    append(key: string, l: Live, m: NewMessage): void {
      if (table.current(key, l)) emit({ type: 'transcript:appended', message: transcripts.append(key, m) });
    },

    /** What the agent said so far, as one assistant message (undefined when it said nothing). */
    flush(key: string, l: Live): string | undefined {
      if (!l.buffer.trim()) return undefined;
      const text = l.buffer;
      l.buffer = '';
      table.append(key, l, { role: 'assistant', actorType: 'agent', actorId: key, text });
      return text;
    },

    /** The agent process is gone (or replaced): so is its MCP credential. */
    dropChild(key: string, l: Live): void {
      // Kept for the auth path: an agent that answered authRequired is stopped like any failed one.
      if (l.child?.authMethods.length) table.authSeen.set(key, l.child.authMethods);
      void l.child?.close();
      l.child = undefined;
      l.mcp?.release(key);
    },

    notRunning: (key: string) =>
      new Error(`The ACP agent of ${key} is not running in this gateway (it ended with a restart)`),
  };
  return table;
}
