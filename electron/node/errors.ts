// What a node answers when something is refused or fails, and a probe outcome as it crosses the
// link (errors as text).
import type { ProbeOutcome } from '../gateway/catalog/provider';
import { isNotFound } from '../gateway/catalog/kit/fsio';
import type { ErrorCode } from '../gateway/nodes/protocol';
import { RequestError } from '@agentclientprotocol/sdk';
import { OutsideRootsError } from './guard';

export class NodeError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'NodeError';
  }
}

/** A probe outcome on the wire (`refused`: the ref was not served). */
export type WireOutcome =
  | Exclude<ProbeOutcome, { kind: 'inconclusive' }>
  | { kind: 'inconclusive'; error: string }
  | { kind: 'refused'; code: ErrorCode; error: string }
  /** Nothing new and the marker as the gateway sent it (most links on most checks). */
  | { kind: 'idle' };

export function errorText(err: unknown): string {
  const m = err instanceof Error ? err.message : String(err);
  return m.slice(0, 1000);
}

/** The answer's error for anything a handler threw. */
export function wireError(err: unknown): { code: ErrorCode; message: string; rpc?: number } {
  if (err instanceof NodeError) return { code: err.code, message: err.message };
  // An agent's file or terminal request refused here: the agent hears the same error as locally.
  if (err instanceof RequestError) return { code: 'failed', message: errorText(err), rpc: err.code };
  if (err instanceof OutsideRootsError) return { code: 'outside_roots', message: err.message };
  if (isNotFound(err)) return { code: 'not_found', message: errorText(err) };
  return { code: 'failed', message: errorText(err) };
}
