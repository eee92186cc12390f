// Worktrees (issue 26): what crosses the IPC boundary about a session's git worktree.
import type { WorktreeInfo } from '../domain';

export type { WorktreeInfo };

export type WorktreeFileStatus = 'added' | 'modified' | 'deleted' | 'renamed';

export interface WorktreeFile {
  path: string;
  status: WorktreeFileStatus;
  oldPath?: string;
  /** Lines; 0 and 0 with `binary` for a binary file. */
  additions: number;
  deletions: number;
  binary?: boolean;
}

/** Addition (`worktrees:changes`): what the Changes tab lists — `worktrees.diff` without the patch. */
export interface WorktreeChanges {
  files: WorktreeFile[];
  /** Addition: files whose changes are not committed in the worktree yet. */
  uncommitted: string[];
  /** Addition: commits on the worktree's branch since the base commit. */
  commits: number;
  baseCommit: string;
}

/** `worktrees.diff`: files changed against the base (committed and uncommitted), and the patch. */
export interface WorktreeDiff extends WorktreeChanges {
  patch: string;
}

/** Addition (`worktrees:file`): one changed file's unified diff, made when a person opens it. */
export interface WorktreeFilePatch {
  path: string;
  patch: string;
}

/** What a fleet row shows: the branch and the counts of the last diff. */
export interface WorktreeStats {
  branch: string;
  files: number;
  additions: number;
  deletions: number;
  uncommitted: number;
  /** The worktree's folder is gone (deleted by hand): the row says so. */
  missing?: boolean;
}

export interface WorktreeOverlap {
  repository: string;
  path: string;
  sessionKeys: string[];
}

/** Whether a folder can hold worktrees: the New session dialog says what will happen. */
export interface WorktreeProbe {
  /** The main repository's top-level folder; absent when the folder is not in a repository. */
  repository?: string;
  /** The branch checked out there; absent on a detached HEAD. */
  branch?: string;
  /** Addition: the repository's local branches (at most 200), to pick a base from. */
  branches?: string[];
  /** Why the agent will start in place, in the person's words. */
  inPlaceReason?: string;
}

/** What discarding loses: the confirmation lists it. */
export interface WorktreeImpact {
  path: string;
  branch: string;
  files: WorktreeFile[];
  uncommitted: string[];
  commits: number;
  /** The folder is already gone: only the branch remains to remove. */
  missing: boolean;
}

export interface ReviewComment {
  path: string;
  /** The line in the new file (or the old file, for a deleted line). */
  line: number;
  side?: 'old' | 'new';
  text: string;
}

export interface ReviewInput {
  comments: ReviewComment[];
  /** Words in the message, not hidden state. */
  verdict?: 'approve' | 'request_changes' | 'comment';
  summary?: string;
}

export type MergeStrategy = 'squash' | 'merge';

/** The worktrees channels (issue 26), spread into CHANNELS. */
export const WORKTREE_CHANNELS = {
  worktreesProbe: 'worktrees:probe',
  worktreesDiff: 'worktrees:diff',
  worktreesChanges: 'worktrees:changes',
  worktreesFile: 'worktrees:file',
  worktreesImpact: 'worktrees:impact',
  worktreesMerge: 'worktrees:merge',
  worktreesRebase: 'worktrees:rebase',
  worktreesDiscard: 'worktrees:discard',
  worktreesKeep: 'worktrees:keep',
  worktreesReview: 'worktrees:review',
  worktreesOverlaps: 'worktrees:overlaps',
} as const;

export interface WorktreeResults {
  'worktrees:probe': WorktreeProbe;
  'worktrees:diff': WorktreeDiff;
  'worktrees:changes': WorktreeChanges;
  'worktrees:file': WorktreeFilePatch;
  'worktrees:impact': WorktreeImpact;
  'worktrees:merge': { commit: string };
  'worktrees:rebase': { baseCommit: string };
  'worktrees:discard': { discarded: true };
  /** Stop tracking the worktree; its folder and branch stay on disk. */
  'worktrees:keep': { kept: true };
  'worktrees:review': { sent: true };
  'worktrees:overlaps': WorktreeOverlap[];
}

/** Inbox: live sessions whose worktrees of one repository change the same files. */
export interface WorktreeOverlapItem {
  id: string;
  type: 'worktree_overlap';
  /** The first of the sessions (the inbox row opens it). */
  sessionKey: string;
  repository: string;
  sessionKeys: string[];
  paths: string[];
}

/** Pushed when the overlaps between worktrees change (the Inbox reads them again). */
export interface WorktreesChangedEvent {
  type: 'worktrees:changed';
}
