// Normalising what a producer hands to record(): keys, clock clamping, one-line summaries and a
// small payload. Anything invalid throws here and becomes a logged, soft failure in record().
import { ACTOR_TYPES, EVENT_KINDS, type ActorType, type EventKind } from '../../../shared/domain';
import { AGENT_ID_PATTERN, normalizeSessionKey, parseSessionKey } from '../../../shared/session-keys';
import type { RecordInput } from '../types';

export const SUMMARY_MAX_CHARS = 200;
export const PAYLOAD_MAX_BYTES = 4096;
export const CLAMP_PAST_MS = 24 * 60 * 60 * 1000;

export interface NormalisedRecord {
  sessionKey: string;
  agentId: string;
  bare: boolean;
  kind: EventKind;
  actorType: ActorType;
  actorId?: string;
  runId?: string;
  occurredAt: number;
  summary: string;
  payload?: string;
  dedupeKey?: string;
  watchers: string[];
}

/** Resolves a key to its stored form and agent id; bare keys need an explicit agent id. */
export function resolveKey(
  sessionKey: unknown,
  agentId?: unknown,
): { key: string; agentId: string; bare: boolean } {
  if (typeof sessionKey !== 'string' || sessionKey.length === 0 || sessionKey.length > 512) {
    throw new Error('sessionKey must be a non-empty string of at most 512 characters');
  }
  const parsed = parseSessionKey(sessionKey);
  if (parsed.agentId) return { key: parsed.key, agentId: parsed.agentId, bare: false };
  if (typeof agentId !== 'string' || !AGENT_ID_PATTERN.test(agentId.toLowerCase())) {
    throw new Error(`agentId is required for bare session key "${sessionKey}"`);
  }
  return { key: parsed.key, agentId: agentId.toLowerCase(), bare: true };
}

/** One line, control characters replaced, at most 200 characters (never split a surrogate pair). */
export function oneLine(text: string, max = SUMMARY_MAX_CHARS): string {
  // eslint-disable-next-line no-control-regex
  let s = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
  if (s.length > max) {
    s = s.slice(0, max);
    const last = s.charCodeAt(max - 1);
    if (last >= 0xd800 && last <= 0xdbff) s = s.slice(0, max - 1);
  }
  return s;
}

export function normaliseRecord(input: RecordInput, now: number): NormalisedRecord {
  if (!input || typeof input !== 'object') throw new Error('record input must be an object');
  const { key, agentId, bare } = resolveKey(input.sessionKey, input.agentId);
  if (!EVENT_KINDS.includes(input.kind)) throw new Error(`unknown event kind: ${String(input.kind)}`);
  if (!ACTOR_TYPES.includes(input.actorType))
    throw new Error(`unknown actor type: ${String(input.actorType)}`);
  if (typeof input.summary !== 'string') throw new Error('summary must be a string');
  let occurredAt = now;
  if (input.occurredAt !== undefined) {
    if (typeof input.occurredAt !== 'number' || !Number.isFinite(input.occurredAt)) {
      throw new Error('occurredAt must be a finite number');
    }
    occurredAt = Math.min(now, Math.max(now - CLAMP_PAST_MS, Math.floor(input.occurredAt)));
  }
  let payload: string | undefined;
  if (input.payload !== undefined) {
    if (input.payload === null || typeof input.payload !== 'object' || Array.isArray(input.payload)) {
      throw new Error('payload must be a JSON object');
    }
    payload = JSON.stringify(input.payload);
    if (Buffer.byteLength(payload) > PAYLOAD_MAX_BYTES)
      throw new Error(`payload exceeds ${PAYLOAD_MAX_BYTES} bytes`);
  }
  const optional = (v: unknown, name: string): string | undefined => {
    if (v === undefined || v === null || v === '') return undefined;
    if (typeof v !== 'string' || v.length > 512)
      throw new Error(`${name} must be a string of at most 512 characters`);
    return v;
  };
  const actorId = optional(input.actorId, 'actorId');
  const watchers = (input.watchers ?? []).filter((w): w is string => typeof w === 'string');
  return {
    sessionKey: key,
    agentId,
    bare,
    kind: input.kind,
    actorType: input.actorType,
    actorId: actorId === undefined ? undefined : normalizeSessionKey(actorId),
    runId: optional(input.runId, 'runId'),
    occurredAt,
    summary: oneLine(input.summary),
    payload,
    dedupeKey: optional(input.dedupeKey, 'dedupeKey'),
    watchers,
  };
}
