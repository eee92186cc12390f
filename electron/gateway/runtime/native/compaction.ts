// Compaction: when a transcript passes its budget, older messages are summarised and replaced by
// one system message, and `compacted` is recorded (log only). Every compaction Sightline performs
// is logged, also the ones a person would not notice.
import type { TranscriptStore } from '../../sessions/transcripts';
import type { StateCore } from '../../state/session-state';
import type { AgentConfig, TranscriptMessage } from '../../types';

export const DEFAULT_COMPACTION_CHARS = 48_000;
export const KEEP_RECENT = 8;
const SUMMARY_MAX = 4000;

export function compactionBudget(agent: AgentConfig): number {
  const n = Number(agent.providerSettings.compactionChars);
  return Number.isInteger(n) && n > 0 ? n : DEFAULT_COMPACTION_CHARS;
}

/** Extractive and deterministic: one line per compacted message, bounded. */
export function summarise(messages: TranscriptMessage[]): string {
  const lines = [`Summary of ${messages.length} earlier messages:`];
  let size = lines[0]!.length;
  for (const m of messages) {
    const who = m.role === 'user' ? (m.actorType === 'human' ? 'human' : (m.actorId ?? 'user')) : m.role;
    const text = m.text.replace(/\s+/g, ' ').trim();
    const line = `- ${who}: ${text.length > 120 ? `${text.slice(0, 119)}…` : text}`;
    if (size + line.length + 1 > SUMMARY_MAX) {
      lines.push(`- … ${messages.length - (lines.length - 1)} more`);
      break;
    }
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n');
}

export function compactIfNeeded(
  deps: { transcripts: TranscriptStore; state: StateCore },
  sessionKey: string,
  agent: AgentConfig,
): boolean {
  const { n, chars } = deps.transcripts.size(sessionKey);
  if (chars <= compactionBudget(agent) || n <= KEEP_RECENT + 1) return false;
  const all = deps.transcripts.all(sessionKey);
  let older = all.slice(0, all.length - KEEP_RECENT);
  // Never split a tool call from its results: keep the cut before a run of tool messages.
  while (older.length > 1 && all[older.length]?.role === 'tool') older = older.slice(0, -1);
  const last = older[older.length - 1];
  if (!last || older.length < 2) return false;
  deps.transcripts.compact(sessionKey, last.id, {
    role: 'system',
    actorType: 'system',
    text: summarise(older),
  });
  deps.state.record({
    sessionKey,
    kind: 'compacted',
    actorType: 'system',
    summary: 'session compacted',
    payload: { messages: older.length },
  });
  return true;
}
