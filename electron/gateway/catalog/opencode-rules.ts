// OpenCode: a user message is human when it has at least one visible text part (not synthetic,
// not ignored, not a compaction continuation), no compaction part, and it is neither the
// "Continue if you have next steps" follow-up nor the replay of the previous prompt after an
// overflow compaction (reference §3.3).
import { obj, str } from './rules';
import { normalizeText, textKey } from './text';

export interface OcPart {
  type?: string;
  text?: string;
  synthetic?: boolean;
  ignored?: boolean;
  metadata?: Record<string, unknown>;
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

export interface OcClassified {
  turns: number;
  echoes: number;
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
): OcClassified {
  const out: OcClassified = { turns: 0, echoes: 0 };
  const users = before.filter((m) => m.role === 'user');
  for (const m of msgs) {
    if (m.role === 'user' && m.parts.length === 0 && now - m.createdAt < WRITING_GRACE_MS) break;
    out.last = m;
    if (m.role !== 'user') continue;
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
      continue;
    }
    out.turns++;
    if (out.occurredAt === undefined || m.createdAt > out.occurredAt) out.occurredAt = m.createdAt;
  }
  return out;
}
