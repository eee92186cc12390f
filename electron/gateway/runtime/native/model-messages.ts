// How the runtime talks about transcripts and failures to models and logs.
import type { TranscriptMessage } from '../../types';
import type { ModelMessage } from './providers/types';

/** What kind of failure, without its message: e.g. `ModelProviderError (HTTP 400)`. */
export function errorKind(err: unknown): string {
  if (!(err instanceof Error)) return typeof err;
  const status = (err as { status?: unknown }).status;
  return typeof status === 'number' ? `${err.name} (HTTP ${status})` : err.name;
}

/** Transcript → model message. Who wrote a user turn is said in-line, since models see only roles. */
export function toModelMessage(m: TranscriptMessage): ModelMessage {
  switch (m.role) {
    case 'assistant':
      return {
        role: 'assistant',
        content: m.text,
        ...(m.toolCalls
          ? {
              toolCalls: m.toolCalls.map((c) => ({
                ...c,
                arguments: (c.arguments ?? {}) as Record<string, unknown>,
              })),
            }
          : {}),
      };
    case 'tool':
      return {
        role: 'tool',
        content: m.text,
        toolCallId: m.toolCallId ?? '',
        ...(m.toolName ? { toolName: m.toolName } : {}),
      };
    case 'system':
      return { role: 'user', content: `[system] ${m.text}` };
    case 'user':
      return {
        role: 'user',
        content: m.actorType === 'agent' && m.actorId ? `[message from ${m.actorId}] ${m.text}` : m.text,
      };
  }
}
