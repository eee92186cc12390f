// Every name that reaches git's command line is checked here first: the branch Sightline makes,
// the base a person or an agent asks for, the short id taken from a session key. A name that could
// read as an option (`-…`), climb out of a folder (`..`) or select something else (`@{`, `:`) is
// refused with a clear message before any program runs.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { parseSessionKey } from '../../../shared/session-keys';
import { invalidArgument } from '../errors';

const SHORT_ID = /^[0-9a-f]{8}$/;
const SHA = /^[0-9a-f]{40}$/;
/** A branch or tag name as people write them; stricter than git (no spaces, no `..`, no `@{`). */
const REF_NAME =
  /^(?!-)(?!.*\.\.)(?!.*\/\/)(?!.*@\{)(?!.*\.lock(\/|$))(?!.*\/$)(?!.*\.$)[A-Za-z0-9._/+-]{1,200}$/;

/** The session key's own id (`agent:main:acp:3f2a9c1d` → `3f2a9c1d`). */
export function shortIdOf(sessionKey: string): string {
  const tail = parseSessionKey(sessionKey).rest.split(':').pop() ?? '';
  if (!SHORT_ID.test(tail))
    throw invalidArgument(`not a session Sightline made a worktree for: ${sessionKey}`);
  return tail;
}

/** The label as a branch word: lower case letters, digits and dashes, at most 40 characters. */
export function slug(label: string | undefined): string {
  const s = (label ?? '')
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return s || 'session';
}

/** `sightline/<label-slug>-<short id>`. */
export function branchFor(label: string | undefined, sessionKey: string): string {
  return `sightline/${slug(label)}-${shortIdOf(sessionKey)}`;
}

/** A base as given (branch, tag or commit): checked before `git rev-parse` sees it. */
export function checkBase(base: unknown): string {
  if (typeof base !== 'string' || base === '')
    throw invalidArgument('base must be a branch name or a commit');
  if (SHA.test(base) || REF_NAME.test(base)) return base;
  throw invalidArgument(
    `base is not a usable branch name or commit: ${JSON.stringify(base.slice(0, 80))} (no spaces, no leading "-", no "..")`,
  );
}

export function checkBranch(branch: string): string {
  if (!branch.startsWith('sightline/') || !REF_NAME.test(branch))
    throw invalidArgument(`not a Sightline worktree branch: ${JSON.stringify(branch.slice(0, 80))}`);
  return branch;
}

export const isSha = (s: string) => SHA.test(s);

/**
 * Where a worktree lives: `<root>/<repository name>-<hash>/<slug>-<short id>`, outside the
 * repository's own tree. The result is checked to lie inside root (no `..` can climb out).
 */
export function worktreeFolder(
  root: string,
  repository: string,
  label: string | undefined,
  sessionKey: string,
): string {
  const repoWord = `${slug(path.basename(repository))}-${createHash('sha256').update(repository).digest('hex').slice(0, 6)}`;
  const folder = path.resolve(root, repoWord, `${slug(label)}-${shortIdOf(sessionKey)}`);
  if (!isInside(root, folder)) throw invalidArgument(`worktree folder escapes its root: ${folder}`);
  return folder;
}

export function isInside(parent: string, child: string): boolean {
  const rel = path.relative(path.resolve(parent), path.resolve(child));
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}
