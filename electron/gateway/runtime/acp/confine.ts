import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { RequestError } from '@agentclientprotocol/sdk';

/** Largest file the agent may read through the client (the whole text travels in one message). */
const MAX_READ_BYTES = 16 * 1024 * 1024;

/** The error the agent sees for any path outside the session working directory. */
export function outsideError(requested: string): RequestError {
  return new RequestError(-32602, `Path is outside the session working directory: ${requested}`);
}

function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

function isErrno(err: unknown, code: string): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === code;
}

/**
 * Resolves `requested` to a real path inside `realRoot` (which must itself be a real path), or
 * throws. Both the lexical path (catches `..`) and the real path (catches symlinks pointing out)
 * must stay inside. For a path that does not exist yet the deepest existing ancestor is resolved
 * instead, so a write cannot go through a symlinked directory either.
 */
export async function confinePath(realRoot: string, requested: string): Promise<string> {
  const lexical = path.resolve(realRoot, requested);
  if (!isInside(realRoot, lexical)) throw outsideError(requested);
  let existing = lexical;
  const missing: string[] = [];
  for (;;) {
    try {
      const real = await fsp.realpath(existing);
      if (!isInside(realRoot, real)) throw outsideError(requested);
      return path.join(real, ...missing);
    } catch (err) {
      if (!isErrno(err, 'ENOENT')) throw err;
      const parent = path.dirname(existing);
      if (parent === existing) throw outsideError(requested);
      missing.unshift(path.basename(existing));
      existing = parent;
    }
  }
}

function fsError(err: unknown, requested: string): unknown {
  if (err instanceof RequestError) return err;
  if (isErrno(err, 'ENOENT')) return new RequestError(-32002, `File not found: ${requested}`);
  if (isErrno(err, 'EISDIR')) return new RequestError(-32602, `Path is a directory: ${requested}`);
  const message = err instanceof Error ? err.message : String(err);
  return new RequestError(-32603, `File system error: ${message}`);
}

/** fs/read_text_file: `line` is 1-based, `limit` counts lines, both optional. */
export async function readConfinedText(
  realRoot: string,
  requested: string,
  line?: number | null,
  limit?: number | null,
): Promise<string> {
  try {
    const file = await confinePath(realRoot, requested);
    const stat = await fsp.stat(file);
    if (stat.size > MAX_READ_BYTES) {
      throw new RequestError(-32602, `File is larger than ${MAX_READ_BYTES} bytes: ${requested}`);
    }
    const text = await fsp.readFile(file, 'utf8');
    if (line == null && limit == null) return text;
    const lines = text.split('\n');
    const start = Math.max(0, (line ?? 1) - 1);
    const end = limit == null ? lines.length : start + Math.max(0, limit);
    return lines.slice(start, end).join('\n');
  } catch (err) {
    throw fsError(err, requested);
  }
}

/** fs/write_text_file: creates missing parent directories (all inside the root by construction). */
export async function writeConfinedText(realRoot: string, requested: string, content: string): Promise<void> {
  try {
    const file = await confinePath(realRoot, requested);
    await fsp.mkdir(path.dirname(file), { recursive: true });
    await fsp.writeFile(file, content, 'utf8');
  } catch (err) {
    throw fsError(err, requested);
  }
}
