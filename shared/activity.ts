// The one-line "last activity" a fleet row shows, computed the same way by the gateway (for the
// snapshot) and the renderer (from pushed events).
import type { LiveOutput, LiveStream, TranscriptMessage } from './ipc/types';

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
  if (stream === 'tool') return `→ ${lastLine(soFar)}`;
  // Only complete lines: a row never shows half a sentence ("Step 5/8: working on"); until the
  // first line ends, the row keeps its previous line and shows that the session is typing.
  return lastLine(soFar.slice(0, soFar.lastIndexOf('\n') + 1));
}

/** An unfinished line longer than this (a paragraph being written) shows up to its last whole word. */
export const SETTLED_PARAGRAPH_CHARS = 80;

/**
 * What of streamed text reads well while it still grows: every complete line, and of the line
 * being written only whole words once it is paragraph-long; never "Step 5/8: working on" or a
 * half word. `done` (the stream has moved on, e.g. thinking once the answer starts): all of it.
 */
export function settledText(soFar: string, done = false): string {
  if (done) return soFar;
  const cut = soFar.lastIndexOf('\n') + 1;
  const rest = soFar.slice(cut);
  if (rest.length <= SETTLED_PARAGRAPH_CHARS) return soFar.slice(0, cut);
  const word = rest.search(/\s\S*$/);
  return soFar.slice(0, word > 0 ? cut + word : cut) + (word > 0 ? ' …' : '');
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

/** Characters of a running step's text (and thinking) kept, in the gateway and the page alike. */
export const LIVE_TAIL_CHARS = 16_384;

const tail = (s: string) => (s.length > LIVE_TAIL_CHARS ? s.slice(s.length - LIVE_TAIL_CHARS) : s);

/**
 * A running step after one more delta (a new step when the run changed), and the activity line
 * it leaves ('' when none). Never mutates `step`.
 */
export function appendLive(
  step: LiveOutput | undefined,
  runId: string,
  stream: LiveStream,
  text: string,
): { step: LiveOutput; line: string } {
  const next = step && step.runId === runId ? { ...step } : { runId, text: '', thinking: '' };
  if (stream === 'text') next.text = tail(next.text + text);
  else if (stream === 'thinking') next.thinking = tail(next.thinking + text);
  const line = liveActivity(
    stream,
    stream === 'text' ? next.text : stream === 'thinking' ? next.thinking : text,
  );
  return { step: next, line: line === '→ ' ? '' : line };
}
