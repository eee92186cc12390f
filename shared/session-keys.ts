import { utf8Decode, utf8Encode } from './utf8';

// Session keys: `agent:<agentId>:<rest>` (agent-qualified) or a bare key such as `global`.

export const AGENT_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export type SessionKind = 'main' | 'subagent' | 'acp' | 'adopted' | 'external' | 'other' | 'bare';

export interface ParsedKey {
  /** The key with its agent id lower-cased (bare keys unchanged). */
  key: string;
  /** Lower-cased agent id; undefined for bare keys. */
  agentId?: string;
  rest: string;
  kind: SessionKind;
}

export function parseSessionKey(raw: string): ParsedKey {
  const m = /^agent:([^:]+):(.+)$/i.exec(raw);
  if (m && m[0].slice(0, 6).toLowerCase() === 'agent:') {
    const agentId = m[1]!.toLowerCase();
    const rest = m[2]!;
    if (AGENT_ID_PATTERN.test(agentId)) {
      return { key: `agent:${agentId}:${rest}`, agentId, rest, kind: restKind(rest) };
    }
  }
  return { key: raw, rest: raw, kind: 'bare' };
}

function restKind(rest: string): SessionKind {
  if (rest === 'main') return 'main';
  if (rest.startsWith('subagent:')) return 'subagent';
  if (rest.startsWith('acp:')) return 'acp';
  if (rest.startsWith('adopted:')) return 'adopted';
  if (rest.startsWith('external:')) return 'external';
  return 'other';
}

export function normalizeSessionKey(raw: string): string {
  return parseSessionKey(raw).key;
}

export function isBareKey(key: string): boolean {
  return parseSessionKey(key).kind === 'bare';
}

/** Sub-agent sessions: `<rest>` starts with `subagent:` or `acp:`. */
export function isSubagentKey(key: string): boolean {
  const k = parseSessionKey(key).kind;
  return k === 'subagent' || k === 'acp';
}

export function isMainKey(key: string): boolean {
  return parseSessionKey(key).kind === 'main';
}

// Key builders: every key the gateway makes comes from one of these, so its form is decided once.

export function mainKeyFor(agentId: string): string {
  return `agent:${agentId.toLowerCase()}:main`;
}

/**
 * A spawned or started child: `agent:<agentId>:subagent:<id>` for native turns, else
 * `agent:<agentId>:<runtime>:<id>` (`acp:` for an ACP agent).
 */
export function childKeyFor(agentId: string, runtime: string, id: string): string {
  return `agent:${agentId.toLowerCase()}:${runtime === 'native' ? 'subagent' : runtime}:${id}`;
}

/**
 * An adopted catalog session: `agent:main:adopted:<provider>:<threadId>`; on a paired node
 * `agent:main:adopted:<provider>@<hostId>:<threadId>` (two machines may hold the same thread id).
 */
export function adoptedKeyFor(provider: string, threadId: string, hostId?: string): string {
  return `agent:main:adopted:${provider}${hostId ? `@${hostId}` : ''}:${threadId}`;
}

/**
 * A session made in Settings for an agent a person runs outside Sightline (a terminal Claude Code
 * or Codex): `agent:<agentId>:external:<slug of its name>-<suffix>`. Sightline never prompts it.
 */
export function externalKeyFor(agentId: string, name: string, suffix: string): string {
  const slug =
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || 'agent';
  return `agent:${agentId.toLowerCase()}:external:${slug}-${suffix}`;
}

export function isValidAgentId(id: string): boolean {
  return AGENT_ID_PATTERN.test(id.toLowerCase());
}

const CONTEXT_PREFIX = 'session-state:';

/** `session-state:<lower-case hex of the UTF-8 target key>`. */
export function noticeContextKey(targetKey: string): string {
  let hex = '';
  for (const b of utf8Encode(targetKey)) hex += b.toString(16).padStart(2, '0');
  return CONTEXT_PREFIX + hex;
}

/** The target key of a session-state context key, or undefined for anything else. */
export function decodeNoticeContextKey(contextKey: string | undefined): string | undefined {
  if (!contextKey || !contextKey.startsWith(CONTEXT_PREFIX)) return undefined;
  const hex = contextKey.slice(CONTEXT_PREFIX.length);
  if (hex.length === 0 || hex.length % 2 !== 0 || !/^[0-9a-f]+$/.test(hex)) return undefined;
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return utf8Decode(bytes);
}

/** The byte-stable notice text of the spec. */
export function noticeText(targetKey: string, changesSince: number): string {
  return (
    `Session "${targetKey}" changed (other actor). Reconcile before acting: ` +
    `session_status sessionKey "${targetKey}" changesSince ${changesSince}.`
  );
}

/**
 * Sessions whose turns Sightline runs itself (main, native sub-agents and other native keys),
 * which can therefore run a failed turn again; ACP children, adopted and bare sessions cannot.
 */
export function runsOwnTurns(key: string): boolean {
  const kind = parseSessionKey(key).kind;
  return kind === 'main' || kind === 'subagent' || kind === 'other';
}
