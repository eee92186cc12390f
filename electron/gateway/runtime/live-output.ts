// Live output (issue 17.1): what a running step produces before it lands in the transcript —
// assistant text, thinking, a tool call starting — pushed as `run:delta` events (the push bridge
// batches them per frame). Kept in memory only, as bounded tails, so a page opened mid-run shows
// the step so far; never written to the signal log or the logs. It also keeps each session's
// last activity line for the fleet.
import { liveActivity, messageActivity } from '../../../shared/activity';
import type { LiveOutput, LiveStream } from '../../../shared/ipc/types';
import type { GatewayEvent, TranscriptMessage } from '../types';

/** Characters of a step's text (and thinking) kept for a page opened mid-run. */
export const LIVE_TAIL_CHARS = 16_384;

const tail = (s: string) => (s.length > LIVE_TAIL_CHARS ? s.slice(s.length - LIVE_TAIL_CHARS) : s);

export type LiveOutputs = ReturnType<typeof createLiveOutputs>;

export function createLiveOutputs(emit: (e: GatewayEvent) => void) {
  const live = new Map<string, LiveOutput>();
  const activity = new Map<string, string>();

  return {
    /** A provider (or an ACP agent) streamed `text` on `stream` for the session's run. */
    delta(sessionKey: string, runId: string, stream: LiveStream, text: string): void {
      if (!text) return;
      let l = live.get(sessionKey);
      if (!l || l.runId !== runId) live.set(sessionKey, (l = { runId, text: '', thinking: '' }));
      if (stream === 'text') l.text = tail(l.text + text);
      else if (stream === 'thinking') l.thinking = tail(l.thinking + text);
      const line = liveActivity(
        stream,
        stream === 'text' ? l.text : stream === 'thinking' ? l.thinking : text,
      );
      if (line && line !== '→ ') activity.set(sessionKey, line);
      emit({ type: 'run:delta', sessionKey, runId, stream, text });
    },
    /** A message landed in the transcript: the step's streamed output is now that message. */
    landed(message: TranscriptMessage): void {
      const l = live.get(message.sessionKey);
      if (l && message.role === 'assistant') {
        l.text = '';
        l.thinking = '';
      }
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
