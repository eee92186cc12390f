// The node's file events (issue 31): a paired node watches the files of its watch set's links
// (a JSONL transcript; OpenCode's database and its -wal) with fs.watch and tells the gateway which
// links changed, in a `changed` frame (protocol.ts), so the gateway checks those links at once
// instead of at its next check. The node only says "look": it reads nothing and moves no marker
// on an event; the check that follows is the gateway's, with the gateway's rules.
//
// Bounded: one watcher per file (links sharing a file share it), at most MAX_WATCHERS per
// connection (the rest are read at the cadence, as before); the events of a burst are one frame
// (coalesced for COALESCE_MS); a frame names at most PUSH_IDS links (protocol.ts). A link dropped from the set
// releases its watchers; a file that was renamed or deleted releases its watcher and is watched
// again, when it is back, at the next request of the gateway's (retry()); close() releases all.
import fs from 'node:fs';
import { PUSH_IDS, type ChangedFrame } from '../gateway/nodes/protocol';

/** Watchers one connection may hold. */
export const MAX_WATCHERS = 8192;
/** Events that arrive within this long of the first are one frame. */
export const COALESCE_MS = 10;

export interface FileWatchDeps {
  push(frame: ChangedFrame): void;
  /** Addition for tests: the file system's watch (default fs.watch). */
  watch?: (file: string, listener: (event: string) => void) => fs.FSWatcher;
  max?: number;
}

interface Watched {
  watcher: fs.FSWatcher;
  ids: Set<number>;
}

/** The events since the last frame, sent together a moment after the first. */
function createPushQueue(push: (f: ChangedFrame) => void) {
  const dirty = new Map<number, boolean>();
  let timer: NodeJS.Timeout | undefined;

  function flush(): void {
    timer = undefined;
    const all = [...dirty];
    dirty.clear();
    for (let i = 0; i < all.length; i += PUSH_IDS) {
      const part = all.slice(i, i + PUSH_IDS);
      const deleted = part.filter(([, d]) => d).map(([id]) => id);
      push({ type: 'changed', ids: part.map(([id]) => id), ...(deleted.length ? { deleted } : {}) });
    }
  }

  return {
    mark(ids: Iterable<number>, deleted: boolean): void {
      for (const id of ids) dirty.set(id, deleted || dirty.get(id) === true);
      timer ??= setTimeout(flush, COALESCE_MS);
    },
    forget(id: number): void {
      dirty.delete(id);
    },
    close(): void {
      if (timer) clearTimeout(timer);
      timer = undefined;
      dirty.clear();
    },
  };
}

/** One connection's watchers: files by path, each link's files, and what waits to be watched. */
class Watchers {
  private readonly byFile = new Map<string, Watched>();
  /** Each link's files. */
  private readonly filesOf = new Map<number, string[]>();
  /** Links with a file not watched now (missing, renamed, over the cap): tried again by retry(). */
  private readonly pending = new Set<number>();
  private readonly queue: ReturnType<typeof createPushQueue>;
  private readonly watchFile: NonNullable<FileWatchDeps['watch']>;
  private readonly max: number;
  private closed = false;

  constructor(deps: FileWatchDeps) {
    this.queue = createPushQueue(deps.push);
    this.watchFile = deps.watch ?? ((file, listener) => fs.watch(file, { persistent: false }, listener));
    this.max = deps.max ?? MAX_WATCHERS;
  }

  private release(file: string): void {
    const w = this.byFile.get(file);
    if (!w) return;
    this.byFile.delete(file);
    w.watcher.close();
    for (const id of w.ids) this.pending.add(id);
  }

  private onEvent(file: string, event: string): void {
    const w = this.byFile.get(file);
    if (!w || this.closed) return;
    // A rename is a deletion or a replacement: this watcher follows the old inode, so it goes.
    const deleted = event === 'rename';
    if (deleted) this.release(file);
    this.queue.mark(w.ids, deleted);
  }

  /** Watches `file` for `id`; false when it cannot now (missing, the cap, no more watches). */
  private attach(file: string, id: number): boolean {
    const w = this.byFile.get(file);
    if (w) return (w.ids.add(id), true);
    if (this.byFile.size >= this.max) return false;
    try {
      const watcher = this.watchFile(file, (event) => this.onEvent(file, event));
      watcher.on('error', () => this.release(file));
      this.byFile.set(file, { watcher, ids: new Set([id]) });
      return true;
    } catch {
      return false;
    }
  }

  private watchAll(id: number): void {
    let all = true;
    for (const file of this.filesOf.get(id) ?? []) {
      if (this.byFile.get(file)?.ids.has(id)) continue;
      if (!this.attach(file, id)) all = false;
    }
    if (all) this.pending.delete(id);
    else this.pending.add(id);
  }

  /** Link `id` is now about `files` (already checked under the roots). */
  set(id: number, files: string[]): void {
    if (this.closed) return;
    const was = this.filesOf.get(id);
    // A moved marker re-sends the link: its watchers stay (a new one could miss a write).
    if (was && was.length === files.length && was.every((f, i) => f === files[i])) return this.watchAll(id);
    this.drop(id);
    this.filesOf.set(id, files);
    this.watchAll(id);
  }

  /** Link `id` left the set: its watchers go unless another link shares the file. */
  drop(id: number): void {
    for (const file of this.filesOf.get(id) ?? []) {
      const w = this.byFile.get(file);
      if (!w) continue;
      w.ids.delete(id);
      if (w.ids.size === 0) {
        this.byFile.delete(file);
        w.watcher.close();
      }
    }
    this.filesOf.delete(id);
    this.pending.delete(id);
    this.queue.forget(id);
  }

  /** Watches what could not be watched before (a file back after a rename, room under the cap). */
  retry(): void {
    if (this.closed) return;
    for (const id of [...this.pending]) this.watchAll(id);
  }

  /** How many files are watched. */
  files(): number {
    return this.byFile.size;
  }

  close(): void {
    this.closed = true;
    for (const w of this.byFile.values()) w.watcher.close();
    this.byFile.clear();
    this.filesOf.clear();
    this.pending.clear();
    this.queue.close();
  }
}

export function createFileWatch(deps: FileWatchDeps): Watchers {
  return new Watchers(deps);
}

export type FileWatch = Watchers;
