// Reads one `git diff --raw --numstat -z` output: git prints every file's raw record first
// (`:<modes> <ids> <status>`, then its path, or old and new path for a rename or copy), then every
// file's numstat record (`<added>\t<deleted>\t<path>`, or `<added>\t<deleted>\t` followed by the
// old and new path) in the same order. Read by position, never by pattern: a path may start with
// `:` or a digit, or hold a tab. One pass over the fields, no regular expression per line.
import type { WorktreeFile, WorktreeFileStatus } from '../../../shared/ipc/worktrees';

const STATUS: Record<string, WorktreeFileStatus> = {
  A: 'added',
  M: 'modified',
  D: 'deleted',
  R: 'renamed',
  T: 'modified',
  C: 'added',
};

export function parseRawNumstat(out: string): WorktreeFile[] {
  const t = out.split('\0');
  const files: WorktreeFile[] = [];
  let i = 0;
  while (i < t.length - 1 && t[i]!.charAt(0) === ':') {
    const meta = t[i++]!;
    const code = meta.charAt(meta.lastIndexOf(' ') + 1);
    const status = STATUS[code] ?? 'modified';
    if (code === 'R' || code === 'C') {
      const oldPath = t[i++]!;
      files.push({ path: t[i++]!, status, ...(code === 'R' ? { oldPath } : {}), additions: 0, deletions: 0 });
    } else files.push({ path: t[i++]!, status, additions: 0, deletions: 0 });
  }
  for (const file of files) {
    const record = t[i++];
    if (record === undefined) break;
    const tab = record.indexOf('\t');
    const added = record.slice(0, tab);
    const rest = record.slice(tab + 1);
    if (rest.endsWith('\t') && rest.indexOf('\t') === rest.length - 1) i += 2; // old and new path follow
    if (added === '-') file.binary = true;
    file.additions = Number(added) || 0;
    file.deletions = Number(rest.slice(0, rest.indexOf('\t'))) || 0;
  }
  return files;
}
