// What a node sends back is hostile until parsed: catalog entries, source refs, markers and probe
// outcomes are checked field by field here, and anything malformed becomes an inconclusive
// outcome (never "missing", never a count) or is left out of a list.
import { isObject } from '../nodes/protocol';
import type { MessageRole } from '../types';
import { isThreadId } from './thread-ids';
import type {
  MarkerFields,
  ProbeOutcome,
  ProviderEntry,
  ProviderModule,
  SourceRef,
  VisibleMessage,
} from './provider';

const ROLES: readonly MessageRole[] = ['user', 'assistant', 'system', 'tool'];
const ACTORS = ['human', 'agent', 'system'] as const;

const text = (v: unknown, max: number): string | undefined =>
  typeof v === 'string' && v.length <= max && !v.includes('\0') ? v : undefined;
const time = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;

export function wireEntry(
  v: unknown,
  modules: ReadonlyMap<string, ProviderModule>,
): ProviderEntry | undefined {
  if (!isObject(v)) return undefined;
  const m = typeof v.provider === 'string' ? modules.get(v.provider) : undefined;
  const threadId = text(v.threadId, 200);
  // A node's ids are checked like local ones: another shape is not listed (ids never become flags).
  if (!m || !threadId || !isThreadId(m, threadId)) return undefined;
  const title = text(v.title, 1000) ?? threadId;
  const cwd = text(v.cwd, 4096);
  const createdAt = time(v.createdAt);
  const lastActivityAt = time(v.lastActivityAt);
  return {
    provider: m.id,
    threadId,
    title: title.slice(0, 200),
    ...(cwd ? { cwd } : {}),
    ...(createdAt !== undefined ? { createdAt } : {}),
    ...(lastActivityAt !== undefined ? { lastActivityAt } : {}),
    sizeBytes: time(v.sizeBytes) ?? 0,
  };
}

export function wireRef(v: unknown): SourceRef | undefined {
  if (!isObject(v)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v)) {
    const s = text(val, 4096);
    if (s === undefined || k.length > 64) return undefined;
    out[k] = s;
  }
  return typeof out.kind === 'string' ? (out as SourceRef) : undefined;
}

export function wireMarker(v: unknown): MarkerFields | undefined {
  if (!isObject(v)) return undefined;
  const { offset } = v;
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0) return undefined;
  const orNull = (x: unknown, max: number): string | null | undefined =>
    x === null || x === undefined ? null : text(x, max);
  const inode = orNull(v.inode, 200);
  const markerJson = orNull(v.markerJson, 64 * 1024);
  const scanState = orNull(v.scanState, 256 * 1024);
  if (inode === undefined || markerJson === undefined || scanState === undefined) return undefined;
  return { offset, inode, markerJson, scanState };
}

function wireMessages(v: unknown): VisibleMessage[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const out: VisibleMessage[] = [];
  for (const m of v) {
    if (!isObject(m)) return undefined;
    const role = ROLES.find((r) => r === m.role);
    const actorType = ACTORS.find((a) => a === m.actorType);
    const t = text(m.text, 2 * 1024 * 1024);
    if (!role || !actorType || t === undefined) return undefined;
    const calls = Array.isArray(m.toolCalls)
      ? m.toolCalls.flatMap((c) =>
          isObject(c) && typeof c.id === 'string' && typeof c.name === 'string'
            ? [{ id: c.id.slice(0, 200), name: c.name.slice(0, 200), arguments: c.arguments }]
            : [],
        )
      : undefined;
    const createdAt = time(m.createdAt);
    out.push({
      role,
      actorType,
      text: t,
      ...(calls?.length ? { toolCalls: calls } : {}),
      ...(createdAt !== undefined ? { createdAt } : {}),
      ...(m.own === true ? { own: true as const } : {}),
    });
  }
  return out;
}

const inconclusive = (why: string): ProbeOutcome => ({ kind: 'inconclusive', error: new Error(why) });

/** A node's probe outcome, or an inconclusive one that says what was wrong with it. */
/** `link`: the link's marker as sent, which an idle outcome keeps. */
export function wireOutcome(v: unknown, link: MarkerFields): ProbeOutcome {
  if (!isObject(v)) return inconclusive('the node sent a malformed outcome');
  switch (v.kind) {
    case 'idle':
      return { kind: 'activity', turns: 0, marker: link, changed: false, from: String(link.offset) };
    case 'missing':
      return { kind: 'missing' };
    case 'inconclusive':
    case 'refused':
      return inconclusive(`on the node: ${text(v.error, 1000) ?? 'no reason given'}`);
    case 'rebaseline': {
      const marker = wireMarker(v.marker);
      return marker
        ? { kind: 'rebaseline', marker, reason: text(v.reason, 100) ?? 'node' }
        : inconclusive('the node sent a malformed marker');
    }
    case 'activity': {
      const marker = wireMarker(v.marker);
      const turns = v.turns;
      const from = text(v.from, 1000);
      if (
        !marker ||
        from === undefined ||
        typeof turns !== 'number' ||
        !Number.isSafeInteger(turns) ||
        turns < 0
      )
        return inconclusive('the node sent a malformed activity outcome');
      const occurredAt = time(v.occurredAt);
      const messages = v.messages === undefined ? undefined : wireMessages(v.messages);
      if (v.messages !== undefined && messages === undefined)
        return inconclusive('the node sent malformed messages');
      return {
        kind: 'activity',
        turns,
        marker,
        changed: v.changed === true,
        from,
        ...(occurredAt !== undefined ? { occurredAt } : {}),
        ...(messages ? { messages } : {}),
      };
    }
    default:
      return inconclusive('the node sent an unknown outcome');
  }
}

export { wireMessages };
