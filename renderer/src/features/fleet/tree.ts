import type { AgentView, SessionStatus, SessionView } from '../../../../shared/ipc';
import { sessionTitle } from '../../lib/format';
import type { FleetGroup, FleetSort, StatusFilter } from '../../stores/fleet-view';

export interface TreeRow {
  session: SessionView;
  depth: number;
}

/** A heading and its rows: an agent (with its parent tree) or a project folder. */
export interface AgentGroup {
  /** The agent's id, or `folder:<path>` when grouped by folder. */
  agentId: string;
  name: string;
  /** Shown on hover: the agent id or the full folder. */
  title: string;
  rows: TreeRow[];
}

export interface TreeOptions {
  filter: string;
  showArchived: boolean;
  status: StatusFilter;
  tool: string;
  sort: FleetSort;
  group: FleetGroup;
}

export const DEFAULT_TREE: TreeOptions = {
  filter: '',
  showArchived: false,
  status: 'all',
  tool: '',
  sort: 'tree',
  group: 'agent',
};

const KIND_ORDER: Record<SessionView['kind'], number> = {
  main: 0,
  other: 1,
  subagent: 2,
  acp: 2,
  adopted: 3,
  external: 3,
  bare: 4,
};

/** Most urgent first: what waits for the person, then failures, then work in flight. */
const STATUS_ORDER: Record<SessionStatus, number> = {
  waiting: 0,
  failed: 1,
  running: 2,
  done_unseen: 3,
  idle: 4,
};

const ADOPTED_TOOL: Record<string, string> = {
  claude: 'Claude Code',
  codex: 'Codex',
  opencode: 'OpenCode',
  pi: 'Pi',
};

/** An adopted session's tool in people's words ("Claude Code" for `claude`). */
export function toolName(provider: string): string {
  return ADOPTED_TOOL[provider] ?? provider;
}

/**
 * What runs the session, in people's words: the catalog tool of an adopted session, "ACP agent",
 * "outside", or the agent's model provider ("scripted" for the demo's scripted agents).
 */
export function toolOf(s: SessionView, agents: ReadonlyMap<string, AgentView>): string {
  if (s.kind === 'adopted') {
    return toolName(/:adopted:([^:@]+)/.exec(s.key)?.[1] ?? '');
  }
  if (s.kind === 'acp') return 'ACP agent';
  if (s.kind === 'external') return 'outside';
  const agent = agents.get(s.agentId);
  if (!agent) return 'session';
  return agent.provider === 'scripted' ? 'scripted' : agent.model || agent.provider;
}

/** The session's project folder: its working folder, or none. */
export function folderOf(s: SessionView): string {
  return s.cwd ?? '';
}

/**
 * A session's title lowered, once per session view (views are replaced when they change, so the
 * cache never goes stale): sorting or filtering 10,000 titles must not re-run `visible` each time.
 */
const names = new WeakMap<SessionView, string>();
function nameKey(s: SessionView): string {
  let name = names.get(s);
  if (name === undefined) names.set(s, (name = sessionTitle(s).toLowerCase()));
  return name;
}

/** The gateway's order for keys (SQLite's binary collation); localeCompare costs ICU a call per pair. */
const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function matcher(o: TreeOptions, agents: ReadonlyMap<string, AgentView>): (s: SessionView) => boolean {
  const q = o.filter.trim().toLowerCase();
  return (s) =>
    (!q || s.key.toLowerCase().includes(q) || nameKey(s).includes(q) || s.kind.includes(q)) &&
    (o.status === 'all' || (o.status === 'upstream' ? !!s.alert : s.status.status === o.status)) &&
    (!o.tool || toolOf(s, agents) === o.tool);
}

function flatSort(sort: FleetSort): (a: SessionView, b: SessionView) => number {
  switch (sort) {
    case 'activity':
      return (a, b) => b.updatedAt - a.updatedAt || byCodePoint(a.key, b.key);
    case 'status':
      return (a, b) =>
        STATUS_ORDER[a.status.status] - STATUS_ORDER[b.status.status] || b.updatedAt - a.updatedAt;
    case 'name':
      return (a, b) => byCodePoint(nameKey(a), nameKey(b));
    case 'tree':
      return (a, b) =>
        KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || a.createdAt - b.createdAt || byCodePoint(a.key, b.key);
  }
}

/**
 * Every row of one group in order, before any filter: the parent tree (children under their
 * parent) or, sorted otherwise, flat. Filtering this order gives the same rows as sorting the
 * filtered ones (the sort is stable), so one order serves every filter.
 */
function orderOf(list: SessionView[], sort: FleetSort): TreeRow[] {
  list.sort(flatSort(sort));
  if (sort !== 'tree') return list.map((session) => ({ session, depth: 0 }));
  const keys = new Set(list.map((s) => s.key));
  const children = new Map<string, SessionView[]>();
  const roots: SessionView[] = [];
  for (const s of list) {
    if (s.parentKey && keys.has(s.parentKey) && s.parentKey !== s.key) {
      const c = children.get(s.parentKey) ?? [];
      c.push(s);
      children.set(s.parentKey, c);
    } else roots.push(s);
  }
  const rows: TreeRow[] = [];
  const seen = new Set<string>();
  const walk = (s: SessionView, depth: number) => {
    if (seen.has(s.key)) return;
    seen.add(s.key);
    rows.push({ session: s, depth });
    for (const c of children.get(s.key) ?? []) walk(c, depth + 1);
  };
  for (const r of roots) walk(r, 0);
  // Sessions whose parents form a cycle (A under B under A: sessions.create may set a parent later)
  // are reached from no root; each cycle is listed from its first session rather than lost.
  if (rows.length < list.length) for (const s of list) walk(s, 0);
  return rows;
}

const folderName = (dir: string) => dir.replace(/\/+$/, '').split('/').pop() || dir;

type Ordered = Map<string, TreeRow[]>;

/**
 * Each group's rows in order, before any filter, per list of sessions: a change of filter, or back
 * to a sort seen before, reuses it while the sessions are the same (a new list when any changes).
 */
const orders = new WeakMap<SessionView[], Map<string, Ordered>>();
function ordered(all: SessionView[], o: TreeOptions): Ordered {
  const cache = orders.get(all) ?? new Map<string, Ordered>();
  orders.set(all, cache);
  const id = `${o.showArchived}|${o.group}|${o.sort}`;
  const hit = cache.get(id);
  if (hit) return hit;
  const buckets = new Map<string, SessionView[]>();
  for (const s of o.showArchived ? all : all.filter((s) => !s.archived)) {
    const key = o.group === 'folder' ? folderOf(s) : s.agentId;
    const list = buckets.get(key) ?? [];
    list.push(s);
    buckets.set(key, list);
  }
  const result: Ordered = new Map();
  for (const [key, list] of buckets) result.set(key, orderOf(list, o.sort));
  cache.set(id, result);
  return result;
}

/**
 * Agents → sessions (main first, children under their parent, then adopted and the rest), or
 * project folders → sessions. Archived sessions are left out unless `showArchived`; the status,
 * tool and text filters keep only matching rows; a sort other than `tree` lists rows flat.
 */
export function buildTree(
  agents: AgentView[],
  all: SessionView[],
  opts: Partial<TreeOptions> = {},
): AgentGroup[] {
  const o = { ...DEFAULT_TREE, ...opts };
  const byId = new Map(agents.map((a) => [a.id, a]));
  const match = matcher(o, byId);
  const narrowed = !!o.filter.trim() || o.status !== 'all' || !!o.tool;
  const buckets = ordered(all, o);
  const rowsOf = (key: string) => {
    const rows = buckets.get(key) ?? [];
    return narrowed ? rows.filter((r) => match(r.session)) : rows;
  };
  const groups: AgentGroup[] = [];
  if (o.group === 'folder') {
    const dirs = [...buckets.keys()].sort((a, b) => (!a ? 1 : !b ? -1 : byCodePoint(a, b)));
    for (const dir of dirs) {
      const rows = rowsOf(dir);
      const name = dir ? folderName(dir) : 'No project folder';
      if (rows.length)
        groups.push({
          agentId: `folder:${dir}`,
          name,
          title: dir || 'sessions without a working folder',
          rows,
        });
    }
    return groups;
  }
  const ids = [...new Set([...agents.map((a) => a.id), ...buckets.keys()])];
  for (const agentId of ids) {
    const rows = rowsOf(agentId);
    if (rows.length || (!narrowed && byId.has(agentId))) {
      groups.push({ agentId, name: byId.get(agentId)?.name ?? agentId, title: `agent ${agentId}`, rows });
    }
  }
  return groups;
}

export function flatKeys(groups: AgentGroup[]): string[] {
  return groups.flatMap((g) => g.rows.map((r) => r.session.key));
}
