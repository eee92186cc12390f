// Every hot query of the spec is an index lookup. The statements are the ones the gateway really
// prepares (captured while createGateway builds its repositories), not copies of them.
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openHarness, type Harness } from '../state/helpers';

let h: Harness;
let statements: string[] = [];

beforeEach(() => {
  const spy = vi.spyOn(Database.prototype, 'prepare');
  try {
    h = openHarness();
    statements = [...new Set(spy.mock.calls.map((c) => String(c[0]).replace(/\s+/g, ' ').trim()))];
  } finally {
    spy.mockRestore();
  }
});
afterEach(() => {
  h.dispose();
});

function plan(sql: string): string[] {
  const params = (sql.match(/\?/g) ?? []).map(() => null);
  const rows = h.gw.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[];
  return rows.map((r) => r.detail);
}

function find(pattern: RegExp): string {
  const found = statements.filter((s) => pattern.test(s));
  expect(found, `exactly one prepared statement matches ${pattern}`).toHaveLength(1);
  return found[0]!;
}

const SEARCH_EVENTS = /^SEARCH session_state_events USING /;
const SEARCH_CURSORS = /^SEARCH session_watch_cursors USING /;

// [purpose, how to recognise the statement, what its plan must contain]
const HOT: [string, RegExp, RegExp][] = [
  [
    'events after a version for a session',
    /^SELECT .* FROM session_state_events WHERE session_key = \? AND agent_id = \? AND sequence > \?/,
    /^SEARCH session_state_events USING (COVERING )?INDEX session_state_events_by_session \(session_key=\? AND agent_id=\? AND sequence>\?\)$/,
  ],
  [
    'head lookup',
    /^SELECT .* FROM session_state_heads WHERE session_key = \? AND agent_id = \?$/,
    /^SEARCH session_state_heads USING PRIMARY KEY \(session_key=\? AND agent_id=\?\)$/,
  ],
  [
    'cursors on a target',
    /^SELECT .* FROM session_watch_cursors WHERE target_key = \?$/,
    /^SEARCH session_watch_cursors USING PRIMARY KEY \(target_key=\?\)$/,
  ],
  [
    'cursor by watcher/target pair',
    /^SELECT .* FROM session_watch_cursors WHERE watcher_key = \? AND target_key = \?$/,
    /^SEARCH session_watch_cursors USING PRIMARY KEY \(target_key=\? AND watcher_key=\?\)$/,
  ],
  [
    'dedupe key',
    /^SELECT .* FROM session_state_events WHERE dedupe_key = \?$/,
    /^SEARCH session_state_events USING INDEX session_state_events_by_dedupe \(dedupe_key=\?\)$/,
  ],
  // The partial index holds only pending cursors: the sweep reads exactly those.
  [
    'pending cursors for the sweep',
    /FROM session_watch_cursors WHERE material > last_seen/,
    /^(SCAN|SEARCH) session_watch_cursors USING (COVERING )?INDEX session_watch_cursors_pending\b/,
  ],
  [
    'age pruning: delete',
    /^DELETE FROM session_state_events WHERE occurred_at < \?$/,
    /^SEARCH session_state_events USING (COVERING )?INDEX session_state_events_by_time \(occurred_at<\?\)$/,
  ],
  [
    'age pruning: watermarks of the rows about to go',
    /FROM session_state_events\b.* WHERE occurred_at < \? GROUP BY/,
    /^SEARCH session_state_events USING (COVERING )?INDEX session_state_events_by_time \(occurred_at<\?\)$/,
  ],
  [
    'row-cap pruning: delete',
    /^DELETE FROM session_state_events WHERE sequence < \?$/,
    /^SEARCH session_state_events USING INTEGER PRIMARY KEY \(rowid<\?\)$/,
  ],
  [
    'row-cap pruning: watermarks of the rows about to go',
    /FROM session_state_events\b.* WHERE sequence < \? GROUP BY/,
    /^SEARCH session_state_events USING INTEGER PRIMARY KEY \(rowid<\?\)$/,
  ],
  [
    'row-cap pruning: the first row that stays',
    /FROM session_state_events\b.*ORDER BY sequence LIMIT 1 OFFSET \?/,
    /^SEARCH session_state_events USING INTEGER PRIMARY KEY \(rowid>\?\)$/,
  ],
  [
    'cursor expiry',
    /^DELETE FROM session_watch_cursors WHERE updated_at < \?$/,
    /^SEARCH session_watch_cursors USING (COVERING )?INDEX session_watch_cursors_by_age \(updated_at<\?\)$/,
  ],
];

describe('hot queries use an index', () => {
  it.each(HOT)('%s', (_purpose, pattern, expected) => {
    const p = plan(find(pattern));
    expect(
      p.some((line) => expected.test(line)),
      p.join('\n'),
    ).toBe(true);
    expect(
      p.filter((line) => /^SCAN session_(state_events|watch_cursors)\b/.test(line) && !expected.test(line)),
    ).toEqual([]);
  });

  it('the human-turn gate is two index lookups, each in the module that owns its table', () => {
    const parent = plan(
      find(/^SELECT 1 AS one FROM sessions WHERE key = \? AND agent_id = \? AND parent_key IS NOT NULL$/),
    );
    expect(parent).toEqual([
      expect.stringMatching(
        /^SEARCH sessions USING (INDEX sqlite_autoindex_sessions_1|INDEX sessions_by_key|PRIMARY KEY) \(key=\?( AND agent_id=\?)?\)$/,
      ),
    ]);
    const watcher = plan(find(/^SELECT 1 AS one FROM session_watch_cursors WHERE target_key = \? LIMIT 1$/));
    expect(watcher).toEqual([expect.stringMatching(SEARCH_CURSORS)]);
  });

  it('no prepared statement scans the log or the cursors without an index', () => {
    const touching = statements.filter((s) => /session_state_events|session_watch_cursors/.test(s));
    expect(touching.length).toBeGreaterThan(15);
    const offenders = touching
      .map((s) => ({
        sql: s,
        bad: plan(s).filter((l) => /^SCAN session_(state_events|watch_cursors)$/.test(l)),
      }))
      .filter((o) => o.bad.length > 0);
    expect(offenders).toEqual([]);
  });

  it('reads of a session log never sort in a temp b-tree', () => {
    for (const pattern of [
      /sequence > \? ORDER BY sequence LIMIT \?/,
      /sequence < \? ORDER BY sequence DESC LIMIT \?/,
    ]) {
      const p = plan(find(pattern));
      expect(p.some((l) => SEARCH_EVENTS.test(l))).toBe(true);
      expect(p.filter((l) => /TEMP B-TREE/.test(l))).toEqual([]);
    }
  });
});
