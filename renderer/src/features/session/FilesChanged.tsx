// The session header's count of files its agent changed (from the diffs in its transcript).
import { useEffect, useState } from 'react';
import { call } from '../../lib/api';
import { useTranscript } from '../../stores/transcript';

export function FilesChanged({ sessionKey }: { sessionKey: string }) {
  const [files, setFiles] = useState<string[]>([]);
  // Re-read when a message with diffs arrives in this session's open transcript.
  const withDiffs = useTranscript((s) =>
    s.key === sessionKey ? s.messages.reduce((n, m) => n + (m.diffs?.length ?? 0), 0) : 0,
  );
  useEffect(() => {
    let live = true;
    call('sessions:changes', { sessionKey }).then(
      (r) => live && setFiles(r.files),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [sessionKey, withDiffs]);
  if (files.length === 0) return null;
  return (
    <span className="badge files-changed" data-testid="files-changed" title={files.join('\n')}>
      {files.length} {files.length === 1 ? 'file' : 'files'} changed
    </span>
  );
}
