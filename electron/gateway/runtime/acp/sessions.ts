// ACP child sessions: external coding agents run as supervised children, the ACP side of the
// runner seam (runner.ts). Each child session owns one agent process (started on first use), its
// prompts run one at a time, its updates stream into the transcript, and permission questions
// wait for the person alone. The session itself (row, `child_spawned`, first message, run) is
// made by the spawn service; this module keeps what lives in memory, in one table
// (live-table.ts) that its pieces share: planning (plan.ts), starting (launch.ts,
// agent-start.ts), the run lifecycle (prompt-run.ts), the person's questions (questions.ts),
// cancel/reset/forget (control.ts) and the auth path (auth-path.ts). The agent gets Sightline's
// MCP server with a credential of its own session, so it can use the session tools as itself.
import { parseSessionKey } from '../../../../shared/session-keys';
import type { NewMessage } from '../../sessions/transcripts';
import type { ToolCallRecord } from '../../types';
import type { ChildRunner } from '../runner';
import { createAuthPath } from './auth-path';
import { createAcpControl } from './control';
import { createAcpLaunch } from './launch';
import { createLiveTable, type AcpSessionsDeps } from './live-table';
import { planChild } from './plan';
import { runPrompt } from './prompt-run';

export type { AcpMcpHooks, AcpSessionsDeps } from './live-table';
export type AcpSessions = ReturnType<typeof createAcpSessions>;

export function createAcpSessions(deps: AcpSessionsDeps) {
  const t = createLiveTable(deps);
  const { live } = t;
  const runner: ChildRunner & {
    recordToolCall(key: string, call: ToolCallRecord, resultText: string): void;
  } = {
    name: 'acp',
    accepts: (key) => live.has(key) || parseSessionKey(key).kind === 'acp',
    plan: (key, req) => planChild(deps, key, req),
    ...createAcpLaunch(t),

    /**
     * A message into an ACP child: sent as a prompt (queued while one runs). An agent's message
     * into a child it did not spawn makes a real coding agent act: it waits for the person's yes,
     * whatever the sender's reach (as sends into adopted sessions do).
     */
    async deliver(key, text, from, signal) {
      let l = live.get(key);
      if (!l) throw t.notRunning(key);
      if (from.type === 'agent' && deps.parentOf(key) !== from.id) {
        await deps.askToSend(key, text, from.id, `prompts the ${l.profile.name} agent`, signal);
        l = live.get(key);
        if (!l) throw t.notRunning(key);
      }
      const current = l;
      return {
        channel: 'acp',
        write: () => t.append(key, current, { role: 'user', actorType: from.type, actorId: from.id, text }),
        start: () => runPrompt(t, key, text),
      };
    },

    /** Sightline's own line (a spawned child's outcome): a turn of its own, like a native parent's. */
    system(key, text) {
      if (!live.has(key)) return false;
      runPrompt(t, key, undefined, undefined, [text]);
      return true;
    },

    /** An MCP tool call of the session's agent, shown like a built-in agent's call and result. */
    recordToolCall(key, call, resultText) {
      if (t.closed) return;
      const l = live.get(key);
      if (l) t.flush(key, l); // what the agent said before the call comes first
      for (const m of [
        { role: 'assistant', actorType: 'agent', actorId: key, text: '', toolCalls: [call] },
        { role: 'tool', actorType: 'system', text: resultText, toolCallId: call.id, toolName: call.name },
      ] as NewMessage[])
        deps.emit({ type: 'transcript:appended', message: deps.transcripts.append(key, m) });
    },

    ...createAcpControl(t),
  };
  return Object.assign(runner, createAuthPath(t));
}
