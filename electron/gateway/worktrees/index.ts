// `gateway.worktrees` (issue 26): each session may work in its own git worktree on its own
// branch. This service owns the worktrees table (repository.ts), makes and removes worktrees
// (git through git.ts: argument arrays, names checked in names.ts), keeps each worktree's last
// counts (changed files with +/−, uncommitted files; computed in child processes) for the fleet
// rows and the overlap check, makes patches only when asked (one file's for the Changes tab), and
// tells the parent of a session whose worktree overlaps another's.
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { SessionInfo, WorktreeInfo } from '../../../shared/domain';
import type {
  MergeStrategy,
  WorktreeChanges,
  WorktreeDiff,
  WorktreeFilePatch,
  WorktreeImpact,
  WorktreeOverlap,
  WorktreeStats,
} from '../../../shared/ipc/worktrees';
import type { Db } from '../db/open';
import { GatewayError, invalidArgument, notFound } from '../errors';
import type { Scheduler } from '../scheduler';
import type { Logger } from '../types';
import { commitsOf, countChanges, patchOf, workingTree, type Counted } from './diff';
import { removeWorktree } from './discard';
import { git } from './git';
import { merge, rebase } from './merge';
import { branchFor, shortIdOf, worktreeFolder } from './names';
import { findOverlaps, overlapNotice } from './overlaps';
import { probe, resolveStart } from './probe';
import { createWorktreeRepository, type WorktreeRepository, type WorktreeRow } from './repository';

export { reviewMessage } from './review';

/** How long after an agent's activity the worktree's diff is computed again. */
export const REFRESH_DELAY_MS = 500;

export interface WorktreesDeps {
  db: Db;
  now: () => number;
  logger: Logger;
  scheduler: Scheduler;
  /** Default parent folder of worktrees (the data folder's `worktrees/`). */
  root: string;
  /** Where Sightline keeps its private indexes (one per worktree). */
  indexDir: string;
  session(key: string): SessionInfo | undefined;
  /** The session's row changed (its worktree, its counts): the views re-read it. */
  changed(sessionKey: string): void;
  /** The overlaps between worktrees changed (the Inbox reads them again). */
  overlapsChanged(): void;
  /** A line for a watcher's next notice. */
  notify(watcherKey: string, text: string, contextKey: string): void;
}

interface Known {
  row: WorktreeRow;
  /** The last counts (what the fleet row and the overlap check read). */
  last?: Counted;
  missing?: boolean;
}

export type Worktrees = WorktreesService;
export const createWorktrees = (deps: WorktreesDeps): Worktrees => new WorktreesService(deps);

const info = ({ path: p, branch, base, baseCommit, repository }: WorktreeRow): WorktreeInfo => ({
  path: p,
  branch,
  base,
  baseCommit,
  repository,
});

/** Methods are arrow properties: the composition root hands them on unbound. */
class WorktreesService {
  private readonly repo: WorktreeRepository;
  private readonly known: Map<string, Known>;
  private readonly queue = new Map<string, Promise<unknown>>();
  private readonly timers = new Map<string, () => void>();
  private readonly announced = new Set<string>();
  private lastOverlaps = '[]';
  private closed = false;

  constructor(private readonly deps: WorktreesDeps) {
    this.repo = createWorktreeRepository(deps.db, deps.now);
    this.known = new Map(this.repo.all().map((row) => [row.sessionKey, { row }]));
  }

  /** One git job at a time per worktree (they share its private index). */
  private serial = <T>(key: string, job: () => Promise<T>): Promise<T> => {
    const next = (this.queue.get(key) ?? Promise.resolve()).then(job, job);
    const settled = next.catch(() => undefined);
    this.queue.set(key, settled);
    void settled.then(() => this.queue.get(key) === settled && this.queue.delete(key));
    return next;
  };
  private indexFile = (key: string) => path.join(this.deps.indexDir, `${shortIdOf(key)}.index`);
  private ready = (key: string): Known => {
    const k = this.known.get(key);
    if (!k || k.row.state !== 'ready' || !this.deps.session(key))
      throw notFound(`Session ${key} has no worktree`);
    return k;
  };
  private forgetRow = (key: string) => {
    this.repo.remove(key);
    this.known.delete(key);
    this.timers.get(key)?.();
    this.timers.delete(key);
    rmSync(this.indexFile(key), { force: true });
  };

  /** The counts now (run inside `serial`: they stage the worktree's private index). */
  private count = async (key: string): Promise<Counted> => {
    const k = this.ready(key);
    try {
      k.last = await countChanges(info(k.row), this.indexFile(key));
      if (k.missing) k.missing = false;
      return k.last;
    } catch (err) {
      if (err instanceof GatewayError && err.message.includes('no longer exists')) k.missing = true;
      throw err;
    }
  };

  /** The counts, and the commits on the branch (one more git call, beside them). */
  private changesNow = async (key: string): Promise<WorktreeChanges> => {
    const w = info(this.ready(key).row);
    const commits = commitsOf(w);
    commits.catch(() => undefined); // awaited below; when it fails, the count fails the same way
    const counted = await this.count(key);
    return { ...counted, commits: await commits, baseCommit: w.baseCommit };
  };

  stats = (key: string): WorktreeStats | undefined => {
    const k = this.known.get(key);
    if (!k || k.row.state !== 'ready') return undefined;
    const files = k.last?.files ?? [];
    return {
      branch: k.row.branch,
      files: files.length,
      additions: files.reduce((n, f) => n + f.additions, 0),
      deletions: files.reduce((n, f) => n + f.deletions, 0),
      uncommitted: k.last?.uncommitted.length ?? 0,
      ...(k.missing ? { missing: true } : {}),
    };
  };

  private isLive = (key: string) => {
    const s = this.deps.session(key);
    return !!s && !s.archived;
  };

  overlaps = (): WorktreeOverlap[] =>
    findOverlaps(
      [...this.known.values()]
        .filter((k) => k.row.state === 'ready' && k.last && !k.missing && this.isLive(k.row.sessionKey))
        .map((k) => ({
          sessionKey: k.row.sessionKey,
          repository: k.row.repository,
          paths: k.last!.files.flatMap((f) => (f.oldPath ? [f.path, f.oldPath] : [f.path])),
        })),
    );

  /** New overlaps reach both rows and, once, the parents of the sessions involved. */
  private announceOverlaps = (): void => {
    const now = this.overlaps();
    const seen = JSON.stringify(now);
    if (seen === this.lastOverlaps) return;
    this.lastOverlaps = seen;
    this.deps.overlapsChanged();
    const groups = new Map<string, { repository: string; keys: string[]; paths: string[] }>();
    for (const o of now) {
      const id = `${o.repository}\0${o.sessionKeys.join('\0')}`;
      const g = groups.get(id) ?? { repository: o.repository, keys: o.sessionKeys, paths: [] };
      g.paths.push(o.path);
      groups.set(id, g);
    }
    for (const [id, g] of groups) {
      const signature = `${id}\0${g.paths.join('\0')}`;
      if (this.announced.has(signature)) continue;
      this.announced.add(signature);
      const text = overlapNotice(g.keys, g.paths, g.repository);
      const parents = new Set(
        g.keys.map((k) => this.deps.session(k)?.parentKey).filter((p): p is string => !!p),
      );
      for (const parent of parents) this.deps.notify(parent, text, `worktree-overlap:${id}`);
      for (const k of g.keys) this.deps.changed(k);
    }
  };

  /** Computes the diff again, then what it changed: the row's counts and the overlaps. */
  refreshNow = (key: string): Promise<void> =>
    this.serial(key, async () => {
      if (this.closed || this.known.get(key)?.row.state !== 'ready') return;
      const before = JSON.stringify(this.stats(key));
      await this.count(key).catch((err) =>
        this.deps.logger.warn('worktrees: diff failed', { sessionKey: key, error: String(err) }),
      );
      if (JSON.stringify(this.stats(key)) !== before) this.deps.changed(key);
      this.announceOverlaps();
    });

  has = (key: string) => this.known.get(key)?.row.state === 'ready';
  get = (key: string): WorktreeInfo | undefined => {
    const k = this.known.get(key);
    return k && k.row.state === 'ready' && this.deps.session(key) ? info(k.row) : undefined;
  };
  /** SessionInfo with its worktree (contract: SessionInfo.worktree). */
  decorate = <T extends SessionInfo>(s: T): T => {
    const k = this.known.get(s.key);
    return k && k.row.state === 'ready' ? { ...s, worktree: info(k.row) } : s;
  };
  probe = async (cwd: string) => {
    const { repo: _repo, ...answer } = await probe(cwd);
    return answer;
  };

  /**
   * A new worktree for a session about to be committed: the row first (state `creating`), then
   * `git worktree add`. The caller marks it `committed` after the session's commit, or
   * `abandon`s it when the start fails. Refuses, making nothing, with the reason.
   */
  create = async (input: {
    sessionKey: string;
    label?: string;
    cwd: string;
    base?: string;
    folder?: string;
  }): Promise<WorktreeInfo> => {
    const { repo: r, base, baseCommit } = await resolveStart(input.cwd, input.base);
    const branch = branchFor(input.label, input.sessionKey);
    const folder = worktreeFolder(
      input.folder ?? this.deps.root,
      r.repository,
      input.label,
      input.sessionKey,
    );
    const taken = await git(r.top, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`]);
    if (taken.code === 0) throw invalidArgument(`A branch named ${branch} already exists in ${r.repository}`);
    const w: WorktreeInfo = { path: folder, branch, base, baseCommit, repository: r.repository };
    try {
      this.known.set(input.sessionKey, { row: this.repo.creating(input.sessionKey, w) });
    } catch (err) {
      throw invalidArgument(
        `A worktree for ${input.sessionKey} or at ${folder} already exists (${String(err)})`,
      );
    }
    const add = await git(r.top, ['worktree', 'add', '--quiet', '-b', branch, '--', folder, baseCommit]);
    if (add.code !== 0) {
      this.forgetRow(input.sessionKey);
      throw new GatewayError(
        'unavailable',
        `git could not make the worktree: ${add.stderr.trim().slice(0, 300)}`,
      );
    }
    return w;
  };
  committed = (key: string): void => {
    const k = this.known.get(key);
    if (!k) return;
    this.repo.ready(key);
    k.row = { ...k.row, state: 'ready' };
    void this.refreshNow(key);
  };
  /** A start that failed: the fresh worktree and branch go, with the row. */
  abandon = (key: string) => this.abandonFresh(key);

  /** The Changes tab's list: files, uncommitted ones and commits, without a patch. */
  changes = (key: string): Promise<WorktreeChanges> =>
    this.serial(key, () => this.changesNow(key)).finally(() => this.announceOverlaps());
  /** Contract `worktrees.diff`: the same with the whole patch (made on demand, never for a row). */
  diff = (key: string): Promise<WorktreeDiff> =>
    this.serial(key, async () => {
      const changes = await this.changesNow(key);
      const patch = await patchOf(info(this.ready(key).row), this.indexFile(key));
      return { ...changes, patch };
    }).finally(() => this.announceOverlaps());
  /** One changed file's patch, when a person opens it in the Changes tab. */
  filePatch = (key: string, filePath: string): Promise<WorktreeFilePatch> =>
    this.serial(key, async () => {
      const k = this.ready(key);
      const files = k.last?.files ?? (await this.count(key)).files;
      const file = files.find((f) => f.path === filePath);
      if (!file) throw invalidArgument(`${filePath} is not among the files this worktree changed`);
      return { path: file.path, patch: await patchOf(info(k.row), this.indexFile(key), file) };
    });
  /** What discarding loses, for the confirmation. */
  impact = async (key: string): Promise<WorktreeImpact> => {
    const w = info(this.ready(key).row);
    try {
      const d = await this.serial(key, () => this.changesNow(key));
      return {
        path: w.path,
        branch: w.branch,
        files: d.files,
        uncommitted: d.uncommitted,
        commits: d.commits,
        missing: false,
      };
    } catch (err) {
      if (this.known.get(key)?.missing)
        return { path: w.path, branch: w.branch, files: [], uncommitted: [], commits: 0, missing: true };
      throw err;
    }
  };
  merge = (
    key: string,
    opts: { strategy?: MergeStrategy; message?: string } = {},
  ): Promise<{ commit: string }> => {
    const strategy = opts.strategy ?? 'squash';
    if (strategy !== 'squash' && strategy !== 'merge')
      throw invalidArgument('strategy must be squash or merge');
    if (opts.message !== undefined && (typeof opts.message !== 'string' || opts.message.trim() === ''))
      throw invalidArgument('message must be a non-empty text');
    return this.serial(key, async () => {
      const w = info(this.ready(key).row);
      const tree = await workingTree(w, this.indexFile(key));
      const label = this.deps.session(key)?.label ?? w.branch;
      const message =
        opts.message ??
        (strategy === 'squash'
          ? `${label}\n\nSquashed from ${w.branch} by Sightline.`
          : `Merge branch '${w.branch}'`);
      const done = await merge(w, tree, { strategy, message });
      this.deps.changed(key);
      return done;
    });
  };
  rebase = (key: string): Promise<{ baseCommit: string }> =>
    this.serial(key, async () => {
      const k = this.ready(key);
      const done = await rebase(info(k.row));
      this.repo.rebased(key, done.baseCommit);
      k.row = { ...k.row, baseCommit: done.baseCommit };
      k.last = undefined;
      return done;
    }).finally(() => void this.refreshNow(key));
  /** Removes the worktree and its branch; the session stays, without a worktree. */
  discard = (key: string): Promise<void> =>
    this.serial(key, async () => {
      await removeWorktree(info(this.ready(key).row));
      this.forgetRow(key);
      this.deps.changed(key);
      this.announceOverlaps();
    });
  /** Keep: the folder and branch stay on disk; Sightline no longer tracks them (session deleted). */
  forget = (key: string): void => {
    if (!this.known.has(key)) return;
    this.forgetRow(key);
    this.announceOverlaps();
  };
  /** The agent did something: its diff is computed again shortly (once for a burst). */
  refresh = (key: string): void => {
    if (this.closed || !this.known.has(key) || this.timers.has(key)) return;
    const cancel = this.deps.scheduler.after(REFRESH_DELAY_MS, () => {
      this.timers.delete(key);
      void this.refreshNow(key);
    });
    this.timers.set(key, cancel);
  };
  /**
   * Start-up: a worktree made for a start that never committed (a crash in between) is removed
   * when nothing was done in it, else kept on disk and reported; one whose session committed is
   * marked ready. Then every worktree's diff is computed once (counts and overlaps).
   */
  recover = async (): Promise<void> => {
    for (const k of [...this.known.values()]) {
      if (k.row.state === 'ready') continue;
      if (this.deps.session(k.row.sessionKey)) {
        this.repo.ready(k.row.sessionKey);
        k.row = { ...k.row, state: 'ready' };
      } else await this.abandonFresh(k.row.sessionKey);
    }
    for (const key of this.known.keys()) await this.refreshNow(key);
  };
  close = (): void => {
    this.closed = true;
    for (const cancel of this.timers.values()) cancel();
    this.timers.clear();
  };

  /** Removes a worktree no session used, unless something was done in it (then it stays, reported). */
  private abandonFresh = async (key: string): Promise<void> => {
    const k = this.known.get(key);
    if (!k) return;
    const w = info(k.row);
    try {
      const [status, head] = await Promise.all([
        git(w.path, ['status', '--porcelain', '-z']),
        git(w.path, ['rev-parse', 'HEAD']),
      ]);
      const untouched =
        !existsSync(w.path) ||
        (status.code === 0 && status.stdout === '' && head.stdout.trim() === w.baseCommit);
      if (untouched) await removeWorktree(w);
      else
        this.deps.logger.warn('worktrees: kept an unfinished worktree with work in it', {
          path: w.path,
          branch: w.branch,
        });
    } catch (err) {
      this.deps.logger.warn('worktrees: could not remove an unfinished worktree', {
        path: w.path,
        error: String(err),
      });
    }
    this.forgetRow(key);
  };
}
