// What each JSONL provider must say about one row. Both a fully parsed row and the skeleton of an
// oversized row (row-scanner.ts, strings cut to their first characters) go through `human`, so
// the rules only ever look at flags, types and text prefixes.
import type { VisibleMessage } from '../provider';
import type { ScanSpec } from './row-scanner';

export type Row = Record<string, unknown>;

export interface RowRules {
  /** Does this row record something a person did directly in the upstream tool? */
  human(row: Row): boolean;
  /**
   * Rows that are human only when no human row of the same check has the same text (Claude's
   * steering input, which may also show up as an ordinary prompt row).
   */
  steering?(row: Row): boolean;
  /**
   * A stable identity for a human row that the tool may write more than once (Codex's completed
   * user items): a row whose identity was already counted is not counted again.
   */
  identity?(row: Row): string | undefined;
  /** The row's text as the tool stored it (for self-echo), when it has one. */
  text(row: Row): string | undefined;
  /** When the row happened (ms), if it says. */
  time(row: Row): number | undefined;
  /**
   * The row as the transcript view shows it (prompts, replies, tool calls), or undefined for rows
   * it does not show. Also given the skeleton of an oversized row (texts cut short).
   */
  visible(row: Row): VisibleMessage | undefined;
  scan: ScanSpec;
}

export function obj(v: unknown): Row | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Row) : undefined;
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** A string, or the `text` of every text-like block of an array (joined with newlines). */
export function contentText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const parts: string[] = [];
  for (const b of content) {
    const t = obj(b)?.text;
    if (typeof t === 'string') parts.push(t);
  }
  return parts.length ? parts.join('\n') : undefined;
}

export function isoTime(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v !== 'string') return undefined;
  const t = Date.parse(v);
  return Number.isFinite(t) ? t : undefined;
}

export function pathIs(path: readonly (string | number)[], ...want: (string | '#')[]): boolean {
  if (path.length !== want.length) return false;
  for (let i = 0; i < want.length; i++) {
    const w = want[i];
    const p = path[i];
    if (w === '#' ? typeof p !== 'number' : p !== w) return false;
  }
  return true;
}

export function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** Tool calls in the transcript view's short form; arguments given as JSON text are parsed. */
export function toolCall(
  id: unknown,
  name: unknown,
  args: unknown,
): { id: string; name: string; arguments: unknown } {
  let parsed = args;
  if (typeof args === 'string') {
    try {
      parsed = JSON.parse(args) as unknown;
    } catch {
      parsed = args;
    }
  }
  return { id: str(id) ?? '', name: str(name) ?? 'tool', arguments: parsed ?? {} };
}

/** Longer message texts are cut (a transcript row is for reading, not an archive). */
export const TEXT_CAP = 64 * 1024;

/** A visible message, or undefined when it would show nothing. */
export function message(
  role: 'user' | 'assistant',
  text: string | undefined,
  at: number | undefined,
  toolCalls: ReturnType<typeof toolCall>[] = [],
): VisibleMessage | undefined {
  const t = !text?.trim() ? '' : text.length > TEXT_CAP ? `${text.slice(0, TEXT_CAP)}…` : text;
  if (!t && toolCalls.length === 0) return undefined;
  return {
    role,
    actorType: role === 'user' ? 'human' : 'agent',
    text: t,
    ...(toolCalls.length ? { toolCalls } : {}),
    ...(at !== undefined ? { createdAt: at } : {}),
  };
}

/**
 * An assistant reply whose content is a string or blocks: the `text` blocks, and the tool-call
 * blocks of `callType` (id, name, arguments under `argsKey`).
 */
export function reply(
  content: unknown,
  at: number | undefined,
  callType: string,
  argsKey: string,
): VisibleMessage | undefined {
  if (!Array.isArray(content)) return message('assistant', str(content), at);
  const blocks = content.map(obj);
  const texts = blocks.filter((b) => b?.type === 'text').map((b) => str(b!.text) ?? '');
  const calls = blocks.filter((b) => b?.type === callType).map((b) => toolCall(b!.id, b!.name, b![argsKey]));
  return message('assistant', texts.join('\n'), at, calls);
}
