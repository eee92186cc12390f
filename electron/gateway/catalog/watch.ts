// Event-driven upstream detection (issue 31): the files of the watched adopted sessions are
// watched with the platform's file events (fs.watch: inotify, FSEvents, ReadDirectoryChangesW),
// so a person's new line is read, classified and recorded right after it is written instead of
// at the next check. The spec's cadence (monitor.ts) stays: it is the fallback when events are
// lost or unsupported and the only source of `upstream_missing` misses, except that a deletion
// event runs the link's first check at once (later misses still come from the cadence, so a
// vanished file is confirmed after the spec's three checks, not sooner).
// Bounded: one watcher per file, events of a burst coalesced into one read per file, reads one
// file after another (never two of one file at once), the probe's 1 MiB window and complete-lines
// rules unchanged (the same probe as a check); watchers of links that went are closed.
import fs from 'node:fs';
import type { Logger } from '../types';
import type { Link } from './links';

/** What the watch needs from the catalog. */
export interface UpstreamWatchDeps {
  logger: Logger;
  /** The files whose events mean "this link may have something new" (none: cadence only). */
  pathsOf(link: Link): string[];
  /** Reads one link now (its fresh row), as one check of it; `deleted`: a deletion event came. */
  probe(sessionKey: string, deleted: boolean): void;
  /** Whether a monitor check is running: links read then wait for it (one reader per link). */
  busy(): boolean;
  /** Addition for tests: the file system's watch (default fs.watch). */
  watch?: (file: string, listener: (event: string) => void) => fs.FSWatcher;
}

interface Watched {
  watcher: fs.FSWatcher;
  keys: Set<string>;
}

/**
 * The links with an event since their last read (true: one of the events was a deletion), read
 * one after another on the next turn of the event loop, never while a check runs.
 */
function createDirtyQueue(deps: UpstreamWatchDeps) {
  const dirty = new Map<string, boolean>();
  let flushing = false;
  let closed = false;

  function schedule(): void {
    if (flushing || closed || dirty.size === 0) return;
    flushing = true;
    // Events of one write (and of one burst the kernel hands over together) arrive before this.
    setImmediate(flush);
  }

  function flush(): void {
    flushing = false;
    if (closed) return;
    // A check is reading the links: what changed is read right after it (see done()).
    if (deps.busy()) return;
    const batch = [...dirty];
    dirty.clear();
    for (const [key, deleted] of batch) {
      try {
        deps.probe(key, deleted);
      } catch (err) {
        deps.logger.warn('catalog: reading a changed upstream source failed', {
          sessionKey: key,
          error: String(err),
        });
      }
    }
    schedule();
  }

  return {
    mark(keys: Iterable<string>, deleted: boolean): void {
      for (const key of keys) dirty.set(key, deleted || dirty.get(key) === true);
      schedule();
    },
    schedule,
    close(): void {
      closed = true;
      dirty.clear();
    },
  };
}

/** The files of `links` and, for each, the links it belongs to. */
function wantedFiles(deps: UpstreamWatchDeps, links: readonly Link[]): Map<string, Set<string>> {
  const want = new Map<string, Set<string>>();
  for (const l of links)
    for (const file of deps.pathsOf(l)) {
      const keys = want.get(file) ?? new Set<string>();
      keys.add(l.sessionKey);
      want.set(file, keys);
    }
  return want;
}

export function createUpstreamWatch(deps: UpstreamWatchDeps) {
  const watchFile =
    deps.watch ??
    ((file: string, listener: (event: string) => void) => fs.watch(file, { persistent: false }, listener));
  const byFile = new Map<string, Watched>();
  const queue = createDirtyQueue(deps);
  let closed = false;
  let last: readonly Link[] | undefined;

  function onEvent(file: string, event: string): void {
    const w = byFile.get(file);
    if (!w) return;
    // A rename is a deletion or a replacement: this watcher follows the old inode, so it goes
    // and the next sync watches whatever has the name now.
    const deleted = event === 'rename';
    if (deleted) release(file);
    queue.mark(w.keys, deleted);
  }

  function release(file: string): void {
    const w = byFile.get(file);
    if (!w) return;
    byFile.delete(file);
    w.watcher.close();
  }

  /**
   * Watches exactly the files of `links` (the watched local links): new ones are added, those of
   * links that went are released. Cheap when the list is the same array as last time.
   */
  function sync(links: readonly Link[]): void {
    if (closed || links === last) return;
    const want = wantedFiles(deps, links);
    for (const file of [...byFile.keys()]) if (!want.has(file)) release(file);
    let complete = true;
    for (const [file, keys] of want) {
      const w = byFile.get(file);
      if (w) {
        w.keys = keys;
        continue;
      }
      try {
        const watcher = watchFile(file, (event) => onEvent(file, event));
        watcher.on('error', () => release(file));
        byFile.set(file, { watcher, keys });
      } catch {
        // Not there (yet), or no more watches: the cadence reads it; the next sync tries again.
        complete = false;
      }
    }
    last = complete ? links : undefined;
  }

  return {
    sync,
    /** A monitor check ended: read what changed while it ran. */
    done(): void {
      queue.schedule();
    },
    /** How many files are watched (for tests and the benchmark). */
    size: () => byFile.size,
    close(): void {
      closed = true;
      for (const file of [...byFile.keys()]) release(file);
      queue.close();
      last = undefined;
    },
  };
}

export type UpstreamWatch = ReturnType<typeof createUpstreamWatch>;
