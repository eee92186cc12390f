// Search across sessions (issue 17.5): the FTS5 index over transcripts stays in step with every
// write (same statement, same transaction), hostile queries never throw, results group by session.
import Database from 'better-sqlite3';
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiHandlers } from '../../electron/gateway/api/handlers';
import { markWords, matchingLine, searchSessions } from '../../electron/gateway/api/search';
import { migrate, migrateTo } from '../../electron/gateway/db/migrate';
import { MIGRATIONS } from '../../electron/gateway/db/migrations';
import { createTranscriptStore, ftsQuery } from '../../electron/gateway/sessions/transcripts';
import { SEARCH_MARK, type SearchResult } from '../../shared/ipc';
import { openHarness, type Harness } from '../state/helpers';
import { tempDir } from '../helpers/temp';

const harnesses: Harness[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const h of harnesses.splice(0)) h.dispose();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const S = SEARCH_MARK.start;
const E = SEARCH_MARK.end;

function setup() {
  const h = openHarness();
  harnesses.push(h);
  const t = createTranscriptStore(h.gw.db, h.clock.now);
  const say = (key: string, text: string) =>
    t.append(key, { role: 'assistant', actorType: 'agent', actorId: key, text });
  return { h, gw: h.gw, t, say };
}

const indexed = (db: Database.Database, word: string) =>
  (
    db
      .prepare(`SELECT rowid FROM session_messages_fts WHERE session_messages_fts MATCH ? ORDER BY rowid`)
      .all(`"${word}"`) as { rowid: number }[]
  ).map((r) => r.rowid);

describe('the transcript index', () => {
  it('follows inserts, compaction and clearing, and passes the FTS5 integrity check', () => {
    const { gw, t, say } = setup();
    gw.sessions.create({ key: 'agent:main:subagent:a', label: 'Writer' });
    const m1 = say('agent:main:subagent:a', 'Drafting the changelog now.');
    const m2 = say('agent:main:subagent:a', 'The changelog mentions the migration guide.');
    expect(indexed(gw.db, 'changelog')).toEqual([m1.id, m2.id]);
    t.compact('agent:main:subagent:a', m2.id, {
      role: 'system',
      actorType: 'system',
      text: 'Summary: notes drafted.',
    });
    expect(indexed(gw.db, 'changelog')).toEqual([]);
    expect(indexed(gw.db, 'summary')).toEqual([m2.id]);
    t.clear('agent:main:subagent:a');
    expect(indexed(gw.db, 'summary')).toEqual([]);
    expect(() =>
      gw.db.exec(`INSERT INTO session_messages_fts (session_messages_fts) VALUES ('integrity-check')`),
    ).not.toThrow();
  });

  it('a message insert rolled back leaves nothing in the index (one transaction)', () => {
    const { gw, say } = setup();
    expect(() =>
      gw.db.transaction(() => {
        say('agent:main:main', 'ephemeral words');
        throw new Error('abort');
      })(),
    ).toThrow('abort');
    expect(indexed(gw.db, 'ephemeral')).toEqual([]);
    expect(gw.db.prepare(`SELECT count(*) AS n FROM session_messages`).get()).toEqual({ n: 0 });
  });

  it('indexes the messages written before the migration', () => {
    const dir = tempDir();
    dirs.push(dir);
    const db = new Database(`${dir}/old.db`);
    migrate(db, MIGRATIONS.slice(0, 5));
    db.prepare(
      `INSERT INTO session_messages (session_key, role, actor_type, text, created_at) VALUES ('agent:main:main', 'user', 'human', 'an older sentence', 1)`,
    ).run();
    // Up to 006 only: 009 drops transcript rows of sessions that do not exist (test/db/upgrade.test.ts).
    migrateTo(db, MIGRATIONS, 6);
    expect(indexed(db, 'older')).toEqual([1]);
    db.close();
  });

  it('turns any text into a query that cannot fail', () => {
    expect(ftsQuery('release notes')).toBe('"release"* AND "notes"*');
    expect(ftsQuery('say "hi" NEAR(a b)')).toBe('"say"* AND "hi"* AND "NEAR(a"* AND "b)"*');
    expect(ftsQuery(' * ^ - " ')).toBeUndefined();
    const { t, say } = setup();
    say('agent:main:main', 'plain text');
    for (const q of [
      '"',
      '*',
      'a OR',
      'NOT',
      '(x',
      'col:1',
      '\u0000\u0002',
      'AND AND',
      '^x',
      'x'.repeat(200),
    ]) {
      expect(() => t.search(q)).not.toThrow();
    }
    expect(t.search('plain').map((h) => h.snippet)).toEqual([`${S}plain${E} text`]);
  });
});

describe('search results', () => {
  it('groups matches by session: label, key and message lines, with counts beyond five', async () => {
    const { gw, say } = setup();
    gw.sessions.create({ key: 'agent:main:subagent:notes', label: 'Release notes writer' });
    gw.sessions.create({ key: 'agent:main:subagent:review', label: 'Reviewer' });
    say(
      'agent:main:subagent:review',
      'First line.\nPlease check the release branch before merging.\nLast line.',
    );
    for (let i = 0; i < 7; i++) say('agent:main:subagent:notes', `release step ${i}`);
    const api = createApiHandlers(gw, {
      app: { name: 'Sightline', version: 't', mode: 'web', dataDir: '/tmp' },
    });
    const env = await api.dispatch('search:query', { query: 'release' });
    expect(env.ok).toBe(true);
    const res = (env as { ok: true; value: SearchResult }).value;
    const notes = res.groups.find((g) => g.sessionKey === 'agent:main:subagent:notes')!;
    expect(notes.label).toBe('Release notes writer');
    expect(notes.matches[0]).toEqual({ field: 'label', line: `${S}Release${E} notes writer` });
    expect(notes.matches.filter((m) => m.field === 'message')).toHaveLength(5);
    expect(notes.more).toBe(2);
    const review = res.groups.find((g) => g.sessionKey === 'agent:main:subagent:review')!;
    expect(review.matches).toHaveLength(1);
    expect(review.matches[0]).toMatchObject({
      field: 'message',
      line: `Please check the ${S}release${E} branch before merging.`,
      role: 'assistant',
    });
    // The label match comes first in the list of groups.
    expect(res.groups[0]!.sessionKey).toBe('agent:main:subagent:notes');
    expect(res.truncated).toBe(false);
  });

  it('finds keys, says nothing for no match, and never lists a session that is gone', () => {
    const { gw, say } = setup();
    gw.sessions.create({ key: 'agent:main:subagent:zeta' });
    gw.sessions.create({ key: 'agent:main:subagent:ghost' });
    say('agent:main:subagent:ghost', 'orphan words');
    gw.sessions.delete('agent:main:subagent:ghost');
    const r = searchSessions(gw, 'zeta', 200);
    expect(r.groups.map((g) => [g.sessionKey, g.matches[0]!.field])).toEqual([
      ['agent:main:subagent:zeta', 'key'],
    ]);
    expect(searchSessions(gw, 'orphan', 200).groups).toEqual([]);
    expect(searchSessions(gw, 'nothing-like-this', 200).groups).toEqual([]);
  });

  it('marks words case-insensitively and cuts long lines around the match', () => {
    expect(markWords('Release Notes', ['notes', 'rel'])).toBe(`${S}Rel${E}ease ${S}Notes${E}`);
    expect(markWords('Release', ['x'])).toBeUndefined();
    const long = `${'a '.repeat(300)}${S}needle${E}${' b'.repeat(300)}`;
    const line = matchingLine(long);
    expect(line.length).toBeLessThanOrEqual(242 + 2);
    expect(line).toContain(`${S}needle${E}`);
    expect(line.startsWith('…') && line.endsWith('…')).toBe(true);
  });
});
