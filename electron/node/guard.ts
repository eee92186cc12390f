// The node serves nothing outside its catalog roots. Every file operation of the providers goes
// through this file system: the path must lie under a root once `..` is resolved, and once every
// symlink on the way is resolved too (a link inside a root that points elsewhere is refused).
// Directories' real paths are cached for one request. A path that passed this check is remembered
// with its file's identity (dev:ino) across requests: the next use costs one lstat, and anything
// else (now a symlink, another file, gone) is checked again from the start, so a path swapped for
// a link after it was checked is still refused. Reads also compare the opened file's identity
// with the checked one (a swap between the check and the open is not read).
import fs from 'node:fs';
import path from 'node:path';
import { nodeFs, type CatalogFs } from '../gateway/catalog/kit/fsio';

export class OutsideRootsError extends Error {
  readonly code = 'EOUTSIDE';
  constructor(readonly target: string) {
    super(`outside the catalog roots: ${target}`);
    this.name = 'OutsideRootsError';
  }
}

function under(p: string, root: string): boolean {
  return p === root || p.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

export interface GuardedFs extends CatalogFs {
  /** Throws OutsideRootsError unless `p` (and what it resolves to) lies under a root. */
  check(p: string): fs.Stats | null;
  /** Forget cached directory paths (start of a request); checked identities stay. */
  reset(): void;
}

/** How many checked paths the node remembers (a watch set's files, plus some). */
export const KNOWN_PATHS = 100_000;

const sameFile = (a: fs.Stats, b: { dev: number; ino: number }) => a.dev === b.dev && a.ino === b.ino;

/** The roots and what was checked under them: the lexical and real checks of one path. */
class RootGuard {
  private readonly lexical: string[];
  private readonly realDirs = new Map<string, string | null>();
  /** Files checked in this request: their lstat (a plain file's stat), or null (missing, a link). */
  private readonly checked = new Map<string, fs.Stats | null>();
  /** Paths that passed the full check, with the identity of the plain file or folder they were. */
  readonly known = new Map<string, { dev: number; ino: number }>();
  private realRoots: string[] | undefined;

  constructor(roots: readonly string[]) {
    this.lexical = roots.map((r) => path.resolve(r));
  }

  private realRootList(): string[] {
    return (this.realRoots ??= this.lexical.flatMap((r) => {
      try {
        return [fs.realpathSync.native(r)];
      } catch {
        return [];
      }
    }));
  }

  /** Real path of a directory (cached), or null when it does not exist. */
  private realDir(dir: string): string | null {
    let r = this.realDirs.get(dir);
    if (r === undefined) {
      try {
        r = fs.realpathSync.native(dir);
      } catch {
        r = null;
      }
      this.realDirs.set(dir, r);
    }
    return r;
  }

  /** The lstat of a path checked before, when it is still the very file (or folder) it was. */
  private stillKnown(p: string): fs.Stats | undefined {
    const id = this.known.get(p);
    if (!id) return undefined;
    const st = fs.lstatSync(p, { throwIfNoEntry: false });
    // The very file (or folder) that was checked: nothing on its way can have moved it outside.
    if (st && !st.isSymbolicLink() && sameFile(st, id)) return st;
    this.known.delete(p);
    return undefined;
  }

  /** Throws OutsideRootsError unless `p` lies under a root; its lstat when it is a plain entry. */
  check(p: string): fs.Stats | null {
    const again = this.stillKnown(p);
    if (again) return again;
    const abs = path.resolve(p);
    const seen = this.checked.get(abs);
    if (seen !== undefined) return seen;
    if (!this.lexical.some((r) => under(abs, r))) throw new OutsideRootsError(p);
    const real = this.realRootList();
    const dir = this.realDir(path.dirname(abs));
    // A missing directory: nothing can be read there; the operation itself says ENOENT.
    if (dir === null) return null;
    let target = path.join(dir, path.basename(abs));
    const st = fs.lstatSync(target, { throwIfNoEntry: false });
    if (st?.isSymbolicLink()) {
      try {
        target = fs.realpathSync.native(target);
      } catch {
        return null;
      }
    }
    if (!real.some((r) => under(target, r))) throw new OutsideRootsError(p);
    const plain = st && !st.isSymbolicLink() ? st : null;
    this.checked.set(abs, plain);
    if (plain) {
      if (this.known.size >= KNOWN_PATHS) this.known.clear();
      this.known.set(p, { dev: plain.dev, ino: plain.ino });
    }
    return plain;
  }

  /** A new request: directories' real paths are looked up again; checked identities stay. */
  reset(): void {
    this.realDirs.clear();
    this.checked.clear();
    this.realRoots = undefined;
  }
}

export function guardedFs(roots: readonly string[], base: CatalogFs = nodeFs): GuardedFs {
  const guard = new RootGuard(roots);
  const check = (p: string) => guard.check(p);
  return {
    check,
    reset: () => guard.reset(),
    statSync(p) {
      // A plain entry's lstat is its stat (one system call per idle transcript).
      return check(p) ?? base.statSync(p);
    },
    openSync(p, flags) {
      if (flags !== 'r') throw new Error('the node opens files read-only');
      const st = check(p);
      const fd = base.openSync(p, flags);
      if (st && !sameFile(fs.fstatSync(fd), st)) {
        base.closeSync(fd);
        guard.known.delete(p);
        throw new Error(`the file changed while it was opened; not read: ${p}`);
      }
      return fd;
    },
    readSync: (fd, buf, off, len, pos) => base.readSync(fd, buf, off, len, pos),
    closeSync: (fd) => base.closeSync(fd),
    readdirSync(p, opts) {
      check(p);
      return base.readdirSync(p, opts);
    },
  };
}
