// One changed file's side-by-side rows for the Changes tab, asked for when the person opens the
// file (`worktrees:file`), never for the whole worktree at once: a worktree of a thousand changed
// files costs its list, and the patch of the one file on screen. Asked again with every new list
// (`version`: the list answer), since an edit can keep a file's counts; the rows on screen stay
// until the new ones arrive.
import { useEffect, useState } from 'react';
import type { WorktreeFile } from '../../../../shared/ipc';
import { parsePatch, type PatchFile } from '../../../../shared/patch';
import { call, errorMessage } from '../../lib/api';

interface Answer {
  key: string;
  file?: PatchFile;
  error?: string;
}

export function useFilePatch(
  sessionKey: string,
  file: WorktreeFile | undefined,
  version: unknown,
): { file?: PatchFile; error?: string } {
  const path = file?.path;
  const key = path === undefined ? '' : `${sessionKey}\n${path}`;
  const [answer, setAnswer] = useState<Answer>({ key: '' });
  useEffect(() => {
    if (path === undefined) return;
    let live = true;
    call('worktrees:file', { sessionKey, path }).then(
      ({ patch }) =>
        live &&
        setAnswer({
          key,
          // No patch (the file changed back since the list was read): an empty file diff.
          file: parsePatch(patch)[0] ?? { path, binary: false, hunks: [] },
        }),
      (err: unknown) =>
        live &&
        setAnswer((a) => ({
          ...(a.key === key && a.file ? { file: a.file } : {}),
          key,
          error: errorMessage(err),
        })),
    );
    return () => {
      live = false;
    };
  }, [sessionKey, path, key, version]);
  if (answer.key !== key) return {};
  return { ...(answer.file ? { file: answer.file } : {}), ...(answer.error ? { error: answer.error } : {}) };
}
