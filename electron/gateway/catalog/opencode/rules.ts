// OpenCode: a user message is human when it has at least one visible text part (not synthetic,
// not ignored, not a compaction continuation), no compaction part, and it is neither the
// "Continue if you have next steps" follow-up nor the replay of the previous prompt after an
// overflow compaction (reference §3.3).
import type { VisibleMessage } from '../provider';
import { message, obj, str, toolCall } from '../kit/rules';
import { normalizeText, textKey } from '../kit/text';

export interface OcPart {
  type?: string;
  text?: string;
  synthetic?: boolean;
  ignored?: boolean;
  metadata?: Record<string, unknown>;
  /** A `tool` part: the call as the transcript view shows it. */
  call?: ReturnType<typeof toolCall>;
}

export interface OcMessage {
  id: string;
  createdAt: number;
  role: string;
  parts: OcPart[];
}

export const CONTINUE_FOLLOW_UP =
  'Continue if you have next steps, or stop and ask for clarification if you are unsure how to proceed.';

/** A message row with no parts yet is still being written for this long. */
export const WRITING_GRACE_MS = 2 * 60 * 1000;

export function ocPart(data: unknown): OcPart {
  const d = obj(data) ?? {};
  return {
    ...(str(d.type) !== undefined ? { type: str(d.type) } : {}),
    ...(str(d.text) !== undefined ? { text: str(d.text) } : {}),
    synthetic: d.synthetic === true,
    ignored: d.ignored === true,
    ...(obj(d.metadata) ? { metadata: obj(d.metadata) } : {}),
    ...(d.type === 'tool' ? { call: toolCall(d.callID, d.tool, obj(d.state)?.input) } : {}),
  };
}

/** The visible text of a user message, or undefined when it has none (so it is not human). */
export function ocVisibleText(m: OcMessage): string | undefined {
  if (m.role !== 'user') return undefined;
  if (m.parts.some((p) => p.type === 'compaction')) return undefined;
  const texts = m.parts
    .filter(
      (p) => p.type === 'text' && !p.synthetic && !p.ignored && p.metadata?.compaction_continue !== true,
    )
    .map((p) => p.text ?? '')
    .filter((t) => t.trim() !== '');
  if (texts.length === 0) return undefined;
  const text = texts.join('\n');
  if (normalizeText(text) === CONTINUE_FOLLOW_UP) return undefined;
  return text;
}

/** A message as the transcript view shows it: the person's visible text, or the reply's text and tool calls. */
export function ocVisible(m: OcMessage): VisibleMessage | undefined {
  if (m.role === 'user') return message('user', ocVisibleText(m), m.createdAt);
  if (m.role !== 'assistant') return undefined;
  const text = m.parts
    .filter((p) => p.type === 'text' && !p.synthetic && !p.ignored)
    .map((p) => p.text ?? '')
    .join('\n');
  const calls = m.parts.flatMap((p) => (p.call ? [p.call] : []));
  return message('assistant', text, m.createdAt, calls);
}

export interface OcClassified {
  turns: number;
  echoes: number;
  /** With `visible`: the messages classified, in order (a replayed prompt is not shown again). */
  messages?: VisibleMessage[];
  /** The last message classified (the marker moves to it). */
  last?: OcMessage;
  occurredAt?: number;
}

/**
 * Classifies `msgs` (oldest first, all after the marker). `before` holds the user messages right
 * before them (oldest first) for replay detection. Stops before a part-less user message that may
 * still be being written.
 */
export function classifyOpencode(
  msgs: OcMessage[],
  before: OcMessage[],
  own: { has(key: string): boolean },
  now: number,
  visible = false,
): OcClassified {
  const out: OcClassified = { turns: 0, echoes: 0, ...(visible ? { messages: [] } : {}) };
  const show = (m: OcMessage, own?: true) => {
    const v = out.messages ? ocVisible(m) : undefined;
    if (v) out.messages!.push(own && v.role === 'user' ? { ...v, own } : v);
  };
  const users = before.filter((m) => m.role === 'user');
  for (const m of msgs) {
    if (m.role === 'user' && m.parts.length === 0 && now - m.createdAt < WRITING_GRACE_MS) break;
    out.last = m;
    if (m.role !== 'user') {
      show(m);
      continue;
    }
    const text = ocVisibleText(m);
    const prev = users[users.length - 1];
    users.push(m);
    if (text === undefined) continue;
    if (prev && prev.parts.some((p) => p.type === 'compaction')) {
      // Overflow compaction replays the prompt it interrupted: same text as the last human prompt.
      const lastHuman = [...users.slice(0, -2)].reverse().find((u) => ocVisibleText(u) !== undefined);
      if (lastHuman && normalizeText(ocVisibleText(lastHuman)!) === normalizeText(text)) continue;
    }
    if (own.has(textKey(text))) {
      out.echoes++;
      show(m, true);
      continue;
    }
    show(m);
    out.turns++;
    if (out.occurredAt === undefined || m.createdAt > out.occurredAt) out.occurredAt = m.createdAt;
  }
  return out;
}
