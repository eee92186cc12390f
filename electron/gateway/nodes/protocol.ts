// The node protocol (issue 19): how a gateway and a `sightline node` talk over a pipe (the
// node's stdin/stdout, locally or through `ssh -T`). Shared by both ends, plain TypeScript with
// no native dependency (it is bundled into the node file).
//
// * The node's output starts with MAGIC; bytes before it (a login banner, npm's script banner)
//   are skipped, up to NOISE_LIMIT.
// * Then frames both ways: a 4-byte big-endian length and that many bytes of UTF-8 JSON (one
//   object). A frame over MAX_FRAME, or one that is not a JSON object, ends the connection:
//   nothing of it is parsed.
// * Each side's first frame is `{type: 'hello', protocol}`; a different protocol is refused.
// * Then requests `{type: 'req', id, op, args}` and answers `{type: 'res', id, ok, result | error}`.
//
// Protocol 2 (protocol 1 had a `probe` op that carried every link's ref and marker each check):
// the monitor's links live on the node as a watch set for the connection (`watch`, and `check`
// with the same `set`/`drop`), and a check's answer carries only the outcomes that are not idle.
//
// Additions to protocol 2, compatible both ways (issue 31): a node whose hello says `pushes`
// watches the files of its watch set once a `watch` or `check` carries `push: true`, and then
// sends `{type: 'changed', ids, deleted?}` (ChangedFrame) when a link's file changed; the gateway
// checks those links with `check` and `ids`. An older gateway never asks, so never hears one; an
// older node never says `pushes`, so it is never asked.

export const PROTOCOL = 2;
export const MAGIC = Buffer.from('SIGHTLINE-NODE\n', 'ascii');
export const MAX_FRAME = 4 * 1024 * 1024;
/** Noise tolerated before MAGIC (shell and npm banners). */
export const NOISE_LIMIT = 64 * 1024;
/** What one answer may carry (a read is 1 MiB; lists and probe batches stop before this). */
export const ANSWER_CAP = 3 * 1024 * 1024;
/** At most this much of one read (a probe window, a transcript tail) crosses the link. */
export const READ_CAP = 1024 * 1024;

/** Exit codes of the node and of the SSH bootstrap script (ssh itself exits 255). */
export const EXIT = {
  /** Refused its input (bad frame, wrong protocol). */
  protocol: 2,
  /** Its Node.js is older than 20. */
  oldNode: 96,
  /** The remote machine has no `node` on PATH. */
  noNode: 97,
  /** The node file is not installed on the remote (the gateway copies it, then retries). */
  noFile: 98,
} as const;

export type Op = 'list' | 'find' | 'baseline' | 'watch' | 'check' | 'tail' | 'continue';

export interface ProviderStatus {
  id: string;
  label: string;
  root: string;
  /** False when this node cannot serve the tool (OpenCode without node:sqlite). */
  available: boolean;
  reason?: string;
}

export interface NodeHello {
  type: 'hello';
  protocol: number;
  nodeId: string;
  name: string;
  /** The Node.js version the node runs on. */
  nodeVersion: string;
  platform: string;
  providers: ProviderStatus[];
  allowContinue: boolean;
  /** Addition (issue 30.1): the node starts ACP agents (`agent.*` ops and channel frames). */
  agents?: boolean;
  /** Addition (issue 31): the node watches its links' files and pushes `changed` frames when asked. */
  pushes?: boolean;
}

/** Links one `changed` frame may name (the gateway refuses more). */
export const PUSH_IDS = 2000;

/** What a node pushes (issue 31): its links whose files changed (`deleted`: renamed or deleted). */
export type ChangedFrame = {
  type: 'changed';
  ids: number[];
  deleted?: number[];
};

export type ErrorCode =
  'protocol' | 'bad_request' | 'outside_roots' | 'not_found' | 'unavailable' | 'continue_disabled' | 'failed';

export interface WireError {
  code: ErrorCode;
  message: string;
  /** An agent's request refused on the node: the JSON-RPC error code the agent hears. */
  rpc?: number;
}

export type Answer =
  | { type: 'res'; id: number; ok: true; result: unknown }
  | { type: 'res'; id: number; ok: false; error: WireError };

export class FrameError extends Error {
  constructor(
    readonly code: 'too_large' | 'garbage' | 'no_magic',
    message: string,
  ) {
    super(message);
    this.name = 'FrameError';
  }
}

const mib = (n: number) => `${(n / 1024 / 1024).toFixed(n % (1024 * 1024) === 0 ? 0 : 1)} MiB`;

export function encodeFrame(msg: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(msg), 'utf8');
  if (body.length > MAX_FRAME)
    throw new FrameError('too_large', `a frame of ${body.length} bytes is over the ${mib(MAX_FRAME)} limit`);
  const head = Buffer.allocUnsafe(4);
  head.writeUInt32BE(body.length, 0);
  return Buffer.concat([head, body]);
}

/**
 * Splits a byte stream into frames. `magic`: skip noise until MAGIC first (the node's output).
 * Throws FrameError on the first bad frame; the caller then drops the connection.
 */
export class FrameReader {
  private buf: Buffer = Buffer.alloc(0);
  private synced: boolean;
  private skipped = 0;

  constructor(
    opts: { magic: boolean },
    private readonly max = MAX_FRAME,
  ) {
    this.synced = !opts.magic;
  }

  push(chunk: Buffer): Record<string, unknown>[] {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    if (!this.synced && !this.sync()) return [];
    const out: Record<string, unknown>[] = [];
    while (this.buf.length >= 4) {
      const len = this.buf.readUInt32BE(0);
      // Refused from the length alone: none of its bytes is parsed.
      if (len > this.max)
        throw new FrameError('too_large', `a frame of ${len} bytes is over the ${mib(this.max)} limit`);
      if (this.buf.length < 4 + len) break;
      const body = this.buf.subarray(4, 4 + len);
      this.buf = this.buf.subarray(4 + len);
      let v: unknown;
      try {
        v = JSON.parse(body.toString('utf8'));
      } catch {
        throw new FrameError('garbage', `a frame of ${len} bytes is not JSON`);
      }
      if (typeof v !== 'object' || v === null || Array.isArray(v))
        throw new FrameError('garbage', `a frame of ${len} bytes is not a JSON object`);
      out.push(v as Record<string, unknown>);
    }
    return out;
  }

  private sync(): boolean {
    const at = this.buf.indexOf(MAGIC);
    if (at < 0) {
      // Keep only what could be the start of MAGIC.
      const keep = Math.min(this.buf.length, MAGIC.length - 1);
      this.skipped += this.buf.length - keep;
      this.buf = this.buf.subarray(this.buf.length - keep);
      if (this.skipped > NOISE_LIMIT)
        throw new FrameError('no_magic', `no node answered: ${this.skipped} bytes of other output`);
      return false;
    }
    this.skipped += at;
    if (this.skipped > NOISE_LIMIT)
      throw new FrameError('no_magic', `no node answered: ${this.skipped} bytes of other output`);
    this.buf = this.buf.subarray(at + MAGIC.length);
    this.synced = true;
    return true;
  }
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A node id: what the node keeps in ~/.sightline-node/id. */
export const NODE_ID = /^[a-z0-9][a-z0-9-]{7,63}$/;
