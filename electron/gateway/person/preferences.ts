// The person's preferences (theme, notifications, Inbox categories, the grace of agents on nodes)
// in table `ui_preferences` (migration 006): one JSON value per name. Values read from disk are parsed like any input: a damaged or unknown
// value falls back to the default instead of failing the page.
import { PREFERENCES_PATCH } from '../../../shared/ipc/schemas';
import { DEFAULT_PREFERENCES, type Preferences } from '../../../shared/ipc/types';
import type { ArgsParsed } from '../../../shared/ipc/schemas';
import type { Db } from '../db/open';
import { hasTable, preferenceRows } from './repository';

export type PreferencesPatch = ArgsParsed<'prefs:set'>;

export interface PreferenceStore {
  get(): Preferences;
  set(patch: PreferencesPatch, at: number): Preferences;
  /** After each change (the gateway tells paired nodes a new agent grace). */
  onChange(listener: (prefs: Preferences, patch: PreferencesPatch) => void): void;
}

function listeners() {
  const all: ((prefs: Preferences, patch: PreferencesPatch) => void)[] = [];
  return {
    add: (l: (typeof all)[number]) => void all.push(l),
    tell: (prefs: Preferences, patch: PreferencesPatch) => {
      for (const l of all) l(prefs, patch);
      return prefs;
    },
  };
}

function merge(base: Preferences, patch: PreferencesPatch): Preferences {
  return {
    theme: patch.theme ?? base.theme,
    notifications: {
      waiting: patch.notifications?.waiting ?? base.notifications.waiting,
      failed: patch.notifications?.failed ?? base.notifications.failed,
      finished: patch.notifications?.finished ?? base.notifications.finished,
      longRunSeconds: patch.notifications?.longRunSeconds ?? base.notifications.longRunSeconds,
      upstreamMissing: patch.notifications?.upstreamMissing ?? base.notifications.upstreamMissing,
    },
    inbox: { doneUnseen: patch.inbox?.doneUnseen ?? base.inbox.doneUnseen },
    nodes: { agentGraceSeconds: patch.nodes?.agentGraceSeconds ?? base.nodes.agentGraceSeconds },
  };
}

/** Stored rows → a patch, dropping what does not parse. */
function fromRows(rows: { name: string; value: string }[]): PreferencesPatch {
  const raw: Record<string, unknown> = {};
  for (const r of rows) {
    try {
      raw[r.name] = JSON.parse(r.value) as unknown;
    } catch {
      // damaged value: the default stands
    }
  }
  const patch: PreferencesPatch = {};
  for (const [name, value] of Object.entries(raw)) {
    const one = PREFERENCES_PATCH.safeParse({ [name]: value });
    if (one.success) Object.assign(patch, one.data);
  }
  return patch;
}

export function createMemoryPreferenceStore(): PreferenceStore {
  let prefs = DEFAULT_PREFERENCES;
  const changed = listeners();
  return {
    get: () => prefs,
    set(patch) {
      prefs = merge(prefs, patch);
      return changed.tell(prefs, patch);
    },
    onChange: changed.add,
  };
}

export function createSqlitePreferenceStore(db: Db): PreferenceStore {
  const rows = preferenceRows(db);
  const get = () => merge(DEFAULT_PREFERENCES, fromRows(rows.all()));
  const save = (patch: PreferencesPatch, at: number) => {
    const next = merge(get(), patch);
    if (patch.theme !== undefined) rows.put('theme', JSON.stringify(next.theme), at);
    if (patch.notifications !== undefined) rows.put('notifications', JSON.stringify(next.notifications), at);
    if (patch.inbox !== undefined) rows.put('inbox', JSON.stringify(next.inbox), at);
    if (patch.nodes !== undefined) rows.put('nodes', JSON.stringify(next.nodes), at);
    return next;
  };
  const changed = listeners();
  return {
    get,
    set: (patch, at) =>
      changed.tell(
        rows.immediate(() => save(patch, at)),
        patch,
      ),
    onChange: changed.add,
  };
}

/** SQLite when migration 006 has run on `db`, memory otherwise (as the inbox dismissals). */
export function createPreferenceStore(db?: Db): PreferenceStore {
  return db && hasTable(db, 'ui_preferences')
    ? createSqlitePreferenceStore(db)
    : createMemoryPreferenceStore();
}
