// New transcripts appear without a rescan (issue 31): the folders that hold the catalog's
// transcripts (each root, and every folder between it and a listed transcript) are watched with
// the platform's file events, and a file or folder that appears or goes in one of them raises one
// `catalog:changed` (coalesced over CHANGED_MS), so the catalog view lists again; that listing
// re-reads only the files that changed (the catalog index). A folder that appears is watched at
// once (a tool makes a project's folder, then its transcript). Appends to a transcript already
// listed raise nothing (a busy agent would otherwise re-list the catalog every second); its new
// time and title show at the next listing. At most MAX_FOLDERS folders are watched: beyond them
// a new transcript shows at the next listing, as before.
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../types';

export const CHANGED_MS = 500;
export const MAX_FOLDERS = 4096;

export interface RootWatchDeps {
  logger: Logger;
  /** Tell the listeners that the catalog may hold other sessions now. */
  onChanged(): void;
  /** Addition for tests: the file system's watch (default fs.watch). */
  watch?: (folder: string, listener: (event: string, name: string | null) => void) => fs.FSWatcher;
}

export function createRootWatch(deps: RootWatchDeps) {
  const watchFolder =
    deps.watch ??
    ((folder: string, listener: (event: string, name: string | null) => void) =>
      fs.watch(folder, { persistent: false }, (event, name) => listener(event, name)));
  const watched = new Map<string, fs.FSWatcher>();
  let timer: NodeJS.Timeout | undefined;
  let closed = true;

  function changed(): void {
    if (timer || closed) return;
    timer = setTimeout(() => {
      timer = undefined;
      if (!closed) deps.onChanged();
    }, CHANGED_MS);
    timer.unref?.();
  }

  function add(folder: string): void {
    if (closed || watched.has(folder) || watched.size >= MAX_FOLDERS) return;
    try {
      const w = watchFolder(folder, (event, name) => {
        // 'rename' is a name that appeared or went; 'change' is a write to a file already there.
        if (event !== 'rename') return;
        changed();
        if (name) addIfFolder(path.join(folder, name));
      });
      w.on('error', () => drop(folder));
      watched.set(folder, w);
    } catch (err) {
      // Gone already, or no events on this file system: the next listing finds what is there.
      if ((err as { code?: string }).code !== 'ENOENT')
        deps.logger.warn('catalog: cannot watch a folder', { folder, error: String(err) });
    }
  }

  function addIfFolder(p: string): void {
    try {
      if (fs.statSync(p).isDirectory()) add(p);
    } catch {
      drop(p); // it went
    }
  }

  function drop(folder: string): void {
    watched.get(folder)?.close();
    watched.delete(folder);
  }

  return {
    start(): void {
      closed = false;
    },
    /** Watch each root and the folders between it and the units a listing saw. */
    follow(root: string, units: readonly string[]): void {
      if (closed) return;
      add(root);
      const prefix = root.endsWith(path.sep) ? root : root + path.sep;
      for (const unit of units) {
        if (!unit.startsWith(prefix)) continue;
        for (
          let dir = path.dirname(unit);
          dir.length > root.length && !watched.has(dir);
          dir = path.dirname(dir)
        )
          add(dir);
      }
    },
    size: () => watched.size,
    close(): void {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      for (const w of watched.values()) w.close();
      watched.clear();
    },
  };
}
