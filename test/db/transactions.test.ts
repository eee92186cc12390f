// One transaction per action: events and notices emitted inside `tx.run` go out after the
// outermost commit, once, in order; a rollback drops them (a failed savepoint only its own).
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createTransactions } from '../../electron/gateway/db/transactions';
import { EventHub } from '../../electron/gateway/events';
import type { GatewayEvent } from '../../electron/gateway/types';
import { collectingLogger } from '../helpers/logger';

let db: Database.Database;
afterEach(() => db?.close());

function setup() {
  db = new Database(':memory:');
  db.exec('CREATE TABLE t (v INTEGER NOT NULL)');
  const logger = collectingLogger();
  const tx = createTransactions(db, (err) => logger.warn('after-commit failed', { error: String(err) }));
  const events = new EventHub(logger, tx);
  const seen: string[] = [];
  events.on((e: GatewayEvent) => {
    if (e.type === 'session:changed') seen.push(`${e.sessionKey}@${rows()}`);
  });
  const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
  const rows = () => (db.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n;
  const changed = (k: string) => events.emit({ type: 'session:changed', sessionKey: k });
  return { tx, seen, insert, rows, changed, logger };
}

describe('transactions', () => {
  it('pushes events after the outermost commit, once and in order', () => {
    const { tx, seen, insert, changed } = setup();
    tx.run(() => {
      insert.run(1);
      changed('a');
      tx.run(() => {
        insert.run(2);
        changed('b');
      });
      expect(seen).toEqual([]);
      insert.run(3);
      changed('c');
    });
    // Every listener saw the committed rows (3), never a half-done action.
    expect(seen).toEqual(['a@3', 'b@3', 'c@3']);
  });

  it('drops the events of a rolled-back transaction', () => {
    const { tx, seen, insert, rows, changed } = setup();
    expect(() =>
      tx.run(() => {
        insert.run(1);
        changed('a');
        throw new Error('half way');
      }),
    ).toThrow('half way');
    expect(rows()).toBe(0);
    expect(seen).toEqual([]);
    changed('after');
    expect(seen).toEqual(['after@0']);
  });

  it('a failed savepoint drops only what it deferred; the outer action still commits', () => {
    const { tx, seen, insert, rows, changed } = setup();
    tx.run(() => {
      insert.run(1);
      changed('kept');
      try {
        tx.run(() => {
          insert.run(2);
          changed('dropped');
          throw new Error('inner');
        });
      } catch {
        // the caller decides: here the action goes on without the inner step
      }
      changed('also-kept');
    });
    expect(rows()).toBe(1);
    expect(seen).toEqual(['kept@1', 'also-kept@1']);
  });

  it('runs after-commit steps at once outside a transaction, and a failing one stops no other', () => {
    const { tx, logger } = setup();
    const order: number[] = [];
    tx.afterCommit(() => order.push(1));
    expect(order).toEqual([1]);
    tx.run(() => {
      tx.afterCommit(() => {
        throw new Error('listener bug');
      });
      tx.afterCommit(() => order.push(2));
      expect(tx.active).toBe(true);
    });
    expect(order).toEqual([1, 2]);
    expect(tx.active).toBe(false);
    expect(logger.lines.map((l) => l.msg)).toEqual(['after-commit failed']);
  });
});
