// Gateway values → the renderer's views (shared/ipc/types). Assigning gateway types to the shared
// view types here is what keeps the two in step. Over 330 lines because it is the one place every
// gateway type meets its view; each mapper is a few lines, grouped by domain (sessions, runs, ACP,
// worktrees), and splitting it would only scatter that check.
import { parseSessionKey, decodeNoticeContextKey } from '../../../shared/session-keys';
import type {
  AcpProfileView,
  ContextUse,
  Cost,
  AgentView,
  CatalogProvider,
  InboxItem,
  PendingNotice,
  McpView,
  SessionView,
  TranscriptPage,
  UpstreamAlert,
} from '../../../shared/ipc/types';
import { CATALOG_PROVIDERS } from '../../../shared/ipc/types';
import { DEFAULT_ACP_REACH } from '../../../shared/ipc/reach';
import { maskSecret, secretHint } from '../../../shared/secrets';
import type { RunOverview } from '../runtime/control';
import { needsOfCommand } from '../runtime/acp/agent-needs';
import {
  versionKey,
  type AcpProfile,
  type AgentConfig,
  type Goal,
  type SessionInfo,
  type TranscriptMessage,
} from '../types';
import type { GatewayApi } from './gateway-api';
import type { DismissalStore } from '../person/dismissals';

export function agentView(cfg: AgentConfig): AgentView {
  const s = cfg.providerSettings;
  return {
    id: cfg.id,
    name: cfg.name,
    provider: cfg.provider,
    model: s.model ?? '',
    baseUrl: s.baseUrl ?? '',
    hasApiKey: Boolean(s.apiKey),
    ...(s.apiKey && secretHint(s.apiKey) ? { apiKeyHint: secretHint(s.apiKey) } : {}),
    systemPrompt: cfg.systemPrompt,
    heartbeatSeconds: cfg.heartbeatSeconds,
    mainKey: cfg.mainKey,
  };
}

/** Settings' view of the MCP credentials: never a secret (only hashes are stored anyway). */
export function mcpView(gw: GatewayApi): McpView {
  const status = gw.mcp.status();
  return {
    ...(status ? { url: status.url, port: status.port } : {}),
    credentials: gw.mcp
      .list()
      .map(({ id, sessionKey, label, kind, createdAt, lastUsedAt, client, issuedPort, reach }) => {
        const sessionLabel = gw.sessions.get(sessionKey)?.label;
        return {
          id,
          sessionKey,
          ...(sessionLabel ? { sessionLabel } : {}),
          ...(label !== undefined ? { label } : {}),
          kind,
          createdAt,
          ...(lastUsedAt !== undefined ? { lastUsedAt } : {}),
          ...(client !== undefined ? { client } : {}),
          issuedPort,
          reach,
        };
      }),
  };
}

/** A profile for the renderer: environment values masked (secrets never travel back). */
export function profileView(p: AcpProfile): AcpProfileView {
  return {
    id: p.id,
    name: p.name,
    command: p.command,
    args: [...p.args],
    env: Object.fromEntries(Object.entries(p.env).map(([k, v]) => [k, maskSecret(v)])),
    ...(p.cwd ? { cwd: p.cwd } : {}),
    allowAgents: p.allowAgents ?? false,
    askTerminal: p.askTerminal ?? false,
    reach: p.reach ?? DEFAULT_ACP_REACH,
    ...needsOf(p),
  };
}

/** What a known agent needs in its environment (the form's API key, base URL and IS_SANDBOX fields). */
const needsOf = (p: AcpProfile) => {
  const needs = needsOfCommand(p.command, p.args);
  return Object.keys(needs).length ? { needs } : {};
};

export function alertId(sessionKey: string, sequence: number): string {
  return `upstream:${sequence}:${sessionKey}`;
}

/** FNV-1a (32 bit), hex: short stable ids for notices. */
function fnv1a(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/** The notice text is byte-stable while pending and names L, so a fresh notice gets a fresh id. */
export function noticeId(watcher: string, text: string): string {
  return `notice:${fnv1a(watcher + '\n' + text)}:${text.length}`;
}

/** The newest of upstream_missing/adopted decides: a re-adoption clears the alert. */
export function upstreamAlert(
  gw: GatewayApi,
  info: SessionInfo,
  dismissals: DismissalStore,
  kind = parseSessionKey(info.key).kind,
): UpstreamAlert | null {
  if (kind !== 'adopted') return null;
  const [latest] = gw.state.timeline(info.key, {
    agentId: info.agentId,
    kinds: ['upstream_missing', 'adopted'],
    limit: 1,
  });
  if (!latest || latest.kind !== 'upstream_missing') return null;
  if (dismissals.has(alertId(info.key, latest.sequence))) return null;
  const channel = latest.payload?.channel;
  return {
    sequence: latest.sequence,
    summary: latest.summary,
    occurredAt: latest.occurredAt,
    ...(typeof channel === 'string' ? { channel } : {}),
  };
}

const usageFacts = (u: { costs: Cost[]; context?: ContextUse }) => ({
  ...(u.costs.length ? { costs: u.costs } : {}),
  ...(u.context ? { context: u.context } : {}),
});

export function sessionView(gw: GatewayApi, info: SessionInfo, dismissals: DismissalStore): SessionView {
  return view(gw, info, dismissals, {
    pendingNotices: gw.notices.peek(info.key).length,
    version: gw.state.version(info.key, info.agentId),
    run: {
      run: gw.runtime.status(info.key),
      status: gw.runtime.sessionStatus(info.key),
      tokens: gw.runtime.tokens(info.key),
      ...usageFacts(gw.runtime.usage(info.key)),
    },
    goal: gw.goals.get(info.key),
  });
}

/**
 * Every session's view for the fleet snapshot: four queries in all instead of five per session
 * (10,000 sessions took a second one by one; docs/perf.md).
 */
export function fleetViews(gw: GatewayApi, dismissals: DismissalStore): SessionView[] {
  const sessions = gw.sessions.list();
  const versions = gw.state.versions();
  const runs = gw.runtime.overview(sessions.map((s) => s.key));
  const goals = gw.goals.all();
  const queued = new Map(gw.notices.all().map((q) => [q.sessionKey, q.entries.length]));
  return sessions.map((info) =>
    view(gw, info, dismissals, {
      pendingNotices: queued.get(info.key) ?? 0,
      version: versions.get(versionKey(info.key, info.agentId)) ?? 0,
      run: runs.get(info.key)!,
      goal: goals.get(info.key),
    }),
  );
}

function view(
  gw: GatewayApi,
  info: SessionInfo,
  dismissals: DismissalStore,
  facts: { pendingNotices: number; version: number; run: RunOverview; goal: Goal | undefined },
): SessionView {
  const { run, status, tokens, costs, context } = facts.run;
  const kind = parseSessionKey(info.key).kind;
  // Object.assign, not `{ ...info, kind, ... }`: V8 builds a spread followed by more properties
  // on a slow path (about 30 µs an object here: a third of a second for 10,000 sessions).
  return Object.assign({}, info, {
    kind,
    stateVersion: facts.version,
    runStatus: run === undefined && status === 'idle' ? ('none' as const) : status,
    pendingNotices: facts.pendingNotices,
    alert: upstreamAlert(gw, info, dismissals, kind),
    goal: facts.goal ?? null,
    tokens,
    ...(costs?.length ? { costs } : {}),
    ...(context ? { context } : {}),
    // The run is handed over so a first read needs no query of its own.
    status: gw.status.get(info.key, run ?? null),
    ...activity(gw.live.activity(info.key)),
    ...worktreeStats(gw, info),
  });
}

const worktreeStats = (gw: GatewayApi, info: SessionInfo) => {
  const stats = info.worktree ? gw.worktrees?.stats(info.key) : undefined;
  return stats ? { worktreeStats: stats } : {};
};

/** Inbox: one item per pair (or more) of sessions whose worktrees change the same files. */
function overlapItems(gw: GatewayApi): InboxItem[] {
  const groups = new Map<string, InboxItem & { type: 'worktree_overlap' }>();
  for (const o of gw.worktrees?.overlaps() ?? []) {
    const id = `overlap:${o.repository}:${o.sessionKeys.join(',')}`;
    const item = groups.get(id) ?? {
      id,
      type: 'worktree_overlap' as const,
      sessionKey: o.sessionKeys[0]!,
      repository: o.repository,
      sessionKeys: o.sessionKeys,
      paths: [],
    };
    item.paths.push(o.path);
    groups.set(id, item);
  }
  return [...groups.values()];
}

const activity = (line: string | undefined) => (line ? { activity: line } : {});

export function failedId(runId: string): string {
  return `failed:${runId}`;
}

/** `agent:<id>:adopted:<catalog>[@<hostId>]:<threadId>` → what re-adopting needs. */
export function adoptedSource(
  key: string,
): { provider: CatalogProvider; threadId: string; hostId?: string } | undefined {
  const parsed = parseSessionKey(key);
  if (parsed.kind !== 'adopted') return undefined;
  const rest = parsed.rest.slice('adopted:'.length);
  const i = rest.indexOf(':');
  if (i <= 0) return undefined;
  // On a paired node: `<catalog>@<hostId>` (shared/session-keys.ts adoptedKeyFor).
  const [provider = '', hostId] = rest.slice(0, i).split('@', 2);
  const threadId = rest.slice(i + 1);
  if (!(CATALOG_PROVIDERS as readonly string[]).includes(provider) || !threadId) return undefined;
  return { provider: provider as CatalogProvider, threadId, ...(hostId ? { hostId } : {}) };
}

/** A finished run the person has not seen: opening the session (or Dismiss) marks it seen. */
export function doneId(runId: string): string {
  return `done:${runId}`;
}

/**
 * What needs the person (besides permission requests): failed runs, upstream alerts, worktree
 * overlaps and, when the person keeps that category on, finished runs not seen yet.
 */
export function inboxItems(
  gw: GatewayApi,
  dismissals: DismissalStore,
  show: { doneUnseen: boolean } = { doneUnseen: true },
): InboxItem[] {
  const items: InboxItem[] = [];
  for (const info of gw.sessions.list()) {
    const status = gw.status.get(info.key);
    if (show.doneUnseen && status.status === 'done_unseen' && status.runId) {
      if (!dismissals.has(doneId(status.runId)))
        items.push({
          id: doneId(status.runId),
          type: 'done_unseen',
          sessionKey: info.key,
          runId: status.runId,
          endedAt: status.since,
        });
      continue;
    }
    if (status.status === 'failed' && status.runId && !dismissals.has(failedId(status.runId))) {
      const run = gw.runtime.status(info.key);
      items.push({
        id: failedId(status.runId),
        type: 'failed',
        sessionKey: info.key,
        runId: status.runId,
        outcome: run?.outcome === 'timeout' ? 'timeout' : 'error',
        reason: status.reason ?? 'the run failed',
        endedAt: status.since,
        retryable: gw.runtime.retryable(info.key),
      });
    }
  }
  // Only adopted sessions can have an upstream alert: a 10,000-session fleet is not read for it.
  for (const info of gw.sessions.listAdopted?.() ?? gw.sessions.list()) {
    const alert = upstreamAlert(gw, info, dismissals);
    if (!alert) continue;
    items.push({
      id: alertId(info.key, alert.sequence),
      type: 'upstream_missing',
      sessionKey: info.key,
      alert,
      ...adoptedSource(info.key),
      ...(info.source ? { source: info.source } : {}),
    });
  }
  items.push(...overlapItems(gw).filter((item) => !dismissals.has(item.id)));
  return items;
}

/** Notices still queued for their watchers (not read yet); they need no one but the watcher. */
export function pendingNotices(gw: GatewayApi): PendingNotice[] {
  const out: PendingNotice[] = [];
  for (const { sessionKey, entries } of gw.notices.all()) {
    for (const entry of entries) {
      const target = decodeNoticeContextKey(entry.contextKey);
      if (target === undefined) continue;
      out.push({ id: noticeId(sessionKey, entry.text), watcher: sessionKey, target, text: entry.text });
    }
  }
  return out;
}

/**
 * A transcript page with what the renderer shows inside it: the notices the session's turns read
 * (each after the message it followed; a page holds those after its own messages, the oldest
 * page also those before any, the newest also those after its last) and, on the newest page,
 * the running step's output so far.
 */
export function transcriptPage(
  gw: GatewayApi,
  key: string,
  page: { messages: TranscriptMessage[]; hasMore: boolean },
  newest: boolean,
): TranscriptPage {
  const first = page.messages[0]?.id;
  const last = page.messages[page.messages.length - 1]?.id;
  const from = !page.hasMore || first === undefined ? 0 : first;
  const to = newest || last === undefined ? Number.MAX_SAFE_INTEGER : last;
  const live = newest ? gw.live.snapshot(key) : undefined;
  return { ...page, notices: gw.noticeHistory.forTranscript(key, from, to), ...(live ? { live } : {}) };
}
