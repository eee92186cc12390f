// The worker thread that unpacks one archive (archive.ts starts it, one per archive): whatever a
// hostile archive costs (inflating, parsing, thousands of entries) is spent here, never on the
// gateway's main thread. One request in, one answer out, then the thread ends.
import { parentPort } from 'node:worker_threads';
import { ArchiveError } from './archive-rules';
import { unpackArchive, type UnpackAnswer, type UnpackRequest } from './archive-unpack';

parentPort?.once('message', (req: UnpackRequest) => {
  unpackArchive(req.file, req.kind, req.dest, req.limits).then(
    (extracted) => parentPort!.postMessage({ ok: true, extracted } satisfies UnpackAnswer),
    (err: unknown) =>
      parentPort!.postMessage({
        ok: false,
        archive: err instanceof ArchiveError,
        message: err instanceof Error ? err.message : String(err),
      } satisfies UnpackAnswer),
  );
});
