import type { Readable } from 'node:stream';

/** Drops UTF-8 continuation bytes at the front so a cut buffer still decodes cleanly. */
export function skipPartialUtf8(buf: Buffer): Buffer {
  let start = 0;
  while (start < buf.length && start < 4 && ((buf[start] ?? 0) & 0xc0) === 0x80) start++;
  return start === 0 ? buf : buf.subarray(start);
}

/** Keeps the last `limit` bytes written; agents can log without bound, the gateway must not. */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    if (this.limit <= 0) return;
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.size > this.limit * 2) this.compact();
  }

  private compact(): void {
    const all = Buffer.concat(this.chunks);
    const kept = all.subarray(Math.max(0, all.length - this.limit));
    this.chunks = [kept];
    this.size = kept.length;
  }

  text(): string {
    this.compact();
    return skipPartialUtf8(this.chunks[0] ?? Buffer.alloc(0)).toString('utf8');
  }

  /** Last non-empty line, for one-line error reasons. */
  lastLine(): string | undefined {
    const lines = this.text()
      .split(/\r?\n/)
      .map((l) => l.trim());
    return lines.filter(Boolean).pop();
  }
}

/**
 * Splits stdout into lines and reports the first one that is not a JSON object. The SDK's
 * ndJsonStream answers such a line with a parse error to the agent and carries on, so without
 * this the client would never learn that the agent broke the protocol.
 */
export class NdJsonInspector {
  private pending: Buffer[] = [];
  private pendingSize = 0;
  private reported = false;
  constructor(
    private readonly onMalformed: (line: string) => void,
    private readonly maxLineBytes: number,
  ) {}

  push(chunk: Buffer): void {
    if (this.reported) return;
    let from = 0;
    for (let nl = chunk.indexOf(10, from); nl !== -1; nl = chunk.indexOf(10, from)) {
      this.pending.push(chunk.subarray(from, nl));
      this.checkLine(Buffer.concat(this.pending));
      this.pending = [];
      this.pendingSize = 0;
      from = nl + 1;
      if (this.reported) return;
    }
    const rest = chunk.subarray(from);
    if (rest.length === 0) return;
    this.pending.push(rest);
    this.pendingSize += rest.length;
    if (this.pendingSize > this.maxLineBytes) {
      this.report(Buffer.concat(this.pending).subarray(0, 200).toString('utf8'));
    }
  }

  /** A last line without a newline at end of stream. */
  end(): void {
    if (this.pending.length > 0) this.checkLine(Buffer.concat(this.pending));
    this.pending = [];
  }

  private checkLine(line: Buffer): void {
    const text = line.toString('utf8').trim();
    if (text === '') return;
    let ok = false;
    try {
      const value: unknown = JSON.parse(text);
      ok = typeof value === 'object' && value !== null && !Array.isArray(value);
    } catch {
      ok = false;
    }
    if (!ok) this.report(text);
  }

  private report(line: string): void {
    if (this.reported) return;
    this.reported = true;
    this.onMalformed(line.length > 120 ? `${line.slice(0, 120)}…` : line);
  }
}

/** A web ReadableStream over the child's stdout that lets the inspector see every byte first. */
export function inspectedReadable(stdout: Readable, inspector: NdJsonInspector): ReadableStream<Uint8Array> {
  // Set when the stream ends, errors or the SDK cancels it; later events must not touch the controller.
  let done = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      stdout.on('data', (chunk: Buffer) => {
        if (done) return;
        inspector.push(chunk);
        if (done) return; // a malformed line can close the connection, and so this stream, synchronously
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      });
      stdout.once('end', () => {
        if (done) return;
        done = true;
        inspector.end();
        controller.close();
      });
      stdout.once('error', (err) => {
        if (done) return;
        done = true;
        controller.error(err);
      });
    },
    cancel() {
      done = true;
      stdout.destroy();
    },
  });
}
