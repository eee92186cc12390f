// One transaction per action. A service does all of its writes inside `tx.run(fn)`; whatever may
// happen only once those writes are durable (push events, notices into the in-memory queues,
// wakes) goes through `tx.afterCommit`, which runs it right after the outermost commit, in order,
// once — or drops it when the transaction rolls back. Outside a transaction it runs at once.
// Nested `run`s are savepoints: a failed inner one drops only what it deferred itself.
import type { Db } from './open';

export interface Transactions {
  run<T>(fn: () => T): T;
  afterCommit(fn: () => void): void;
  /** True inside `run` (a deferred callback would wait for the commit). */
  readonly active: boolean;
}

export function createTransactions(db: Db, onError: (err: unknown) => void): Transactions {
  let depth = 0;
  let deferred: (() => void)[] = [];

  const flush = () => {
    const callbacks = deferred;
    deferred = [];
    for (const fn of callbacks) {
      try {
        fn();
      } catch (err) {
        // The writes are committed; one failing follower must not silence the others.
        onError(err);
      }
    }
  };

  return {
    run<T>(fn: () => T): T {
      const outermost = depth === 0;
      const mark = deferred.length;
      depth++;
      let committed = false;
      try {
        const result = outermost ? db.transaction(fn).immediate() : db.transaction(fn)();
        committed = true;
        return result;
      } finally {
        depth--;
        // Rolled back: what this level deferred never happened.
        if (!committed) deferred.length = mark;
        if (outermost) {
          if (committed) flush();
          else deferred = [];
        }
      }
    },
    afterCommit(fn) {
      if (depth === 0) fn();
      else deferred.push(fn);
    },
    get active() {
      return depth > 0;
    },
  };
}
