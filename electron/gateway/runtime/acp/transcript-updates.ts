// An ACP agent's updates as the person sees them: its words and thoughts stream as live output
// while the prompt runs; its message, plan and finished tool calls (with their diffs) become
// transcript lines, in the order the agent sent them.
import type { LiveStream } from '../../../../shared/ipc/types';
import type { Live, LiveTable } from './live-table';
import type { AcpUpdate } from './types';

export function recordUpdate(t: LiveTable, key: string, l: Live, u: AcpUpdate): void {
  const stream = (kind: LiveStream, text: string) => {
    if (l.run && t.current(key, l)) t.deps.live.delta(key, l.run.runId, kind, text);
  };
  if (u.kind === 'message') {
    l.buffer += u.text;
    stream('text', u.text);
    return;
  }
  if (u.kind === 'thought') return stream('thinking', u.text);
  t.flush(key, l);
  if (u.kind === 'tool_call') stream('tool', u.title);
  if (u.kind === 'plan') {
    t.append(key, l, {
      role: 'assistant',
      actorType: 'agent',
      actorId: key,
      text: `Plan:\n${u.entries.map((e) => `- [${e.status}] ${e.content}`).join('\n')}`,
    });
    return;
  }
  l.diffs.add(u.toolCallId, u.diffs);
  if (u.kind !== 'tool_call' && u.status !== 'completed' && u.status !== 'failed') return;
  const diffs = l.diffs.take(u.toolCallId);
  t.append(key, l, {
    role: 'tool',
    actorType: 'agent',
    toolName: 'acp',
    toolCallId: u.toolCallId,
    text: `${u.title} — ${u.status}`,
    ...(diffs ? { diffs } : {}),
  });
}
