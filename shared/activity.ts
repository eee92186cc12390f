// The one-line "last activity" a fleet row shows, computed the same way by the gateway (for the
// snapshot) and the renderer (from pushed events).
import type { LiveStream, TranscriptMessage } from './ipc/types';

/** Characters of an activity line. */
export const ACTIVITY_CHARS = 160;

/** The last non-empty line of `text`, collapsed and clipped; '' when there is none. */
export function lastLine(text: string): string {
  let end = text.length;
  for (;;) {
    const start = text.lastIndexOf('\n', end - 1);
    const line = text
      .slice(start + 1, end)
      .replace(/\s+/g, ' ')
      .trim();
    if (line) return line.length > ACTIVITY_CHARS ? `${line.slice(0, ACTIVITY_CHARS - 1)}…` : line;
    if (start < 0) return '';
    end = start;
  }
}

/** The activity line of streamed output so far (`so far` is the stream's accumulated text). */
export function liveActivity(stream: LiveStream, soFar: string): string {
  return stream === 'tool' ? `→ ${lastLine(soFar)}` : lastLine(soFar);
}

/** The activity line a transcript message leaves. */
export function messageActivity(
  m: Pick<TranscriptMessage, 'role' | 'text' | 'toolName' | 'toolCalls'>,
): string {
  if (m.role === 'tool') return `${m.toolName ?? 'tool'}: ${lastLine(m.text) || 'done'}`;
  const line = lastLine(m.text);
  if (line) return line;
  const call = m.toolCalls?.[m.toolCalls.length - 1];
  return call ? `→ ${call.name}` : '';
}
