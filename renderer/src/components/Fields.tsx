// Tool arguments and results as readable fields instead of raw JSON: objects become labelled
// rows, lists become numbered items, session keys become session names (full key on hover),
// times in epoch milliseconds become dates (the number on hover).
import { parseSessionKey } from '../../../shared/session-keys';
import { SessionName } from './SessionName';
import { dateTime, time } from '../lib/format';

/** Nesting shown as fields; anything deeper is shown as compact JSON. */
const MAX_DEPTH = 4;
/** Items of a list shown; the rest are counted. */
const MAX_ITEMS = 50;

/** `changesSince` → `changes since`, `session_key` → `session key`. */
export function fieldName(key: string): string {
  return key
    .replace(/_/g, ' ')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase();
}

const isKey = (s: string) => s.length <= 512 && parseSessionKey(s).kind !== 'bare';

/**
 * A time in epoch milliseconds: a field named like one (`occurredAt`, `since`, `createdTime`,
 * `timestamp`) holding an integer between 2001 and 2286 as milliseconds.
 */
export function isEpochMs(name: string, v: unknown): v is number {
  return (
    typeof v === 'number' &&
    Number.isInteger(v) &&
    v >= 1e12 &&
    v < 1e13 &&
    /(at|time|since|timestamp|date|until)$/i.test(name)
  );
}

function Value({ v, depth, name = '' }: { v: unknown; depth: number; name?: string }) {
  if (v === null || v === undefined) return <span className="muted">none</span>;
  if (typeof v === 'string')
    return isKey(v) ? <SessionName sessionKey={v} /> : <span className="str">{v}</span>;
  if (isEpochMs(name, v))
    return (
      <time dateTime={new Date(v).toISOString()} title={`${dateTime(v)} (${v})`}>
        {time(v)}
      </time>
    );
  if (typeof v === 'number' || typeof v === 'boolean') return <span className="mono">{String(v)}</span>;
  if (depth >= MAX_DEPTH) return <code>{JSON.stringify(v)}</code>;
  if (Array.isArray(v)) {
    if (v.length === 0) return <span className="muted">none</span>;
    if (v.every((x) => x === null || typeof x !== 'object'))
      return (
        <span>
          {v.slice(0, MAX_ITEMS).map((x, i) => (
            <span key={i}>
              {i > 0 && ', '}
              <Value v={x} depth={depth + 1} name={name} />
            </span>
          ))}
          {v.length > MAX_ITEMS && <span className="muted"> … {v.length - MAX_ITEMS} more</span>}
        </span>
      );
    return (
      <ol className="field-list">
        {v.slice(0, MAX_ITEMS).map((x, i) => (
          <li key={i}>
            <Value v={x} depth={depth + 1} />
          </li>
        ))}
        {v.length > MAX_ITEMS && <li className="muted">… {v.length - MAX_ITEMS} more</li>}
      </ol>
    );
  }
  if (typeof v === 'object') return <Fields value={v as Record<string, unknown>} depth={depth + 1} />;
  return <span>{String(v)}</span>;
}

export function Fields({ value, depth = 0 }: { value: Record<string, unknown>; depth?: number }) {
  const entries = Object.entries(value);
  if (entries.length === 0) return <span className="muted">nothing</span>;
  return (
    <dl className="fields" data-testid="fields">
      {entries.map(([k, v]) => (
        <div key={k} className="field">
          <dt title={k}>{fieldName(k)}</dt>
          <dd>
            <Value v={v} depth={depth} name={k} />
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** A JSON object or list in `text`, or undefined for anything else (plain text stays text). */
export function parseStructured(text: string): Record<string, unknown> | unknown[] | undefined {
  const t = text.trim();
  if (!(t.startsWith('{') || t.startsWith('['))) return undefined;
  try {
    const v = JSON.parse(t) as unknown;
    return v !== null && typeof v === 'object' ? (v as Record<string, unknown> | unknown[]) : undefined;
  } catch {
    return undefined;
  }
}

export function StructuredValue({ value }: { value: Record<string, unknown> | unknown[] }) {
  return Array.isArray(value) ? <Value v={value} depth={0} /> : <Fields value={value} />;
}
