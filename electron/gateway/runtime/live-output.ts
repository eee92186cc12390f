// Live output (issue 17.1): what a running step produces before it lands in the transcript —
// assistant text, thinking, a tool call starting — pushed as `run:delta` events (the push bridge
// batches them per frame). Kept in memory only, as bounded tails, so a page opened mid-run shows
// the step so far; never written to the signal log or the logs. It also keeps each session's
// last activity line for the fleet.
import { appendLive, messageActivity } from '../../../shared/activity';
import type { LiveOutput, LiveStream } from '../../../shared/ipc/types';
import type { GatewayEvent, TranscriptMessage } from '../types';

export type LiveOutputs = ReturnType<typeof createLiveOutputs>;

export function createLiveOutputs(emit: (e: GatewayEvent) => void) {
  const live = new Map<string, LiveOutput>();
  const activity = new Map<string, string>();

  return {
    /** A provider (or an ACP agent) streamed `text` on `stream` for the session's run. */
    delta(sessionKey: string, runId: string, stream: LiveStream, text: string): void {
      if (!text) return;
      const { step, line } = appendLive(live.get(sessionKey), runId, stream, text);
      live.set(sessionKey, step);
      if (line) activity.set(sessionKey, line);
      emit({ type: 'run:delta', sessionKey, runId, stream, text });
    },
    /** A message landed in the transcript: the step's streamed output is now that message. */
    landed(message: TranscriptMessage): void {
      const l = live.get(message.sessionKey);
      if (l && message.role === 'assistant') live.set(message.sessionKey, { ...l, text: '', thinking: '' });
      const line = messageActivity(message);
      if (line) activity.set(message.sessionKey, line);
    },
    /** The run ended: nothing is streaming any more. */
    ended(sessionKey: string): void {
      live.delete(sessionKey);
    },
    snapshot(sessionKey: string): LiveOutput | undefined {
      const l = live.get(sessionKey);
      return l && (l.text || l.thinking) ? { ...l } : undefined;
    },
    activity: (sessionKey: string): string | undefined => activity.get(sessionKey),
    forget(sessionKey: string): void {
      live.delete(sessionKey);
      activity.delete(sessionKey);
    },
  };
}
