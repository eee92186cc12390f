// Cancellation, stall detection and error wording shared by the network providers.
//
// Both SDKs end a stream's iteration *silently* when its request is aborted, and their own
// `timeout` only covers the wait for response headers, so a stream that stops mid-way would hang
// a turn forever. The guard below owns the AbortController handed to the SDK: it follows the
// caller's signal, cuts a stream that goes quiet for `idleMs`, and remembers which of the two
// fired so the failure is reported as what it was.
import { baseUrlProblem } from '../../../trust/base-url';
import { ModelAbortedError, ModelProviderError } from './types';

export const DEFAULT_TIMEOUT_MS = 120_000;

export class RequestGuard {
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private idleFired = false;
  private disposed = false;
  private readonly follow = (): void => this.controller.abort();

  constructor(
    private readonly outer: AbortSignal,
    private readonly idleMs: number,
  ) {
    outer.addEventListener('abort', this.follow, { once: true });
    this.touch();
  }

  /** The signal to hand to the SDK: aborts on cancellation or on a stall. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get cancelled(): boolean {
    return this.outer.aborted;
  }

  get stalled(): boolean {
    return this.idleFired;
  }

  /** Call on every received event: the stall timer restarts. */
  touch(): void {
    clearTimeout(this.timer);
    // The SDK may still deliver a chunk while unwinding after the call settled: no new timer then.
    if (this.disposed) return;
    this.timer = setTimeout(() => {
      this.idleFired = true;
      this.controller.abort();
    }, this.idleMs);
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.timer);
    this.outer.removeEventListener('abort', this.follow);
  }
}

/**
 * Runs one provider call under a guard. Rejects with ModelAbortedError as soon as the caller's
 * signal fires (without waiting for the SDK to unwind), with a stall error when the server went
 * quiet, and otherwise with `classify(err)` for whatever the SDK threw.
 */
export async function runGuarded<T>(
  label: string,
  outer: AbortSignal,
  idleMs: number,
  work: (guard: RequestGuard) => Promise<T>,
  classify: (err: unknown) => ModelProviderError,
): Promise<T> {
  if (outer.aborted) throw new ModelAbortedError();
  const guard = new RequestGuard(outer, idleMs);
  let onAbort = (): void => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new ModelAbortedError());
    outer.addEventListener('abort', onAbort, { once: true });
  });
  const settle = (err: unknown): Error => {
    if (guard.cancelled) return new ModelAbortedError();
    if (guard.stalled) return new ModelProviderError(`${label}: no data from the server for ${idleMs} ms`);
    return err instanceof ModelProviderError ? err : classify(err);
  };
  const run = (async () => {
    try {
      const result = await work(guard);
      // The SDK iteration ends without an error when aborted: a "finished" run may be a cut one.
      if (guard.cancelled || guard.stalled) throw settle(undefined);
      return result;
    } catch (err) {
      throw settle(err);
    }
  })();
  // The race may settle on `aborted` first; the loser's rejection is expected and not a leak.
  run.catch(() => undefined);
  try {
    return await Promise.race([run, aborted]);
  } finally {
    guard.dispose();
    outer.removeEventListener('abort', onAbort);
  }
}

/**
 * Settings come from a form: fail at creation, in words, rather than on the first turn. The rules
 * (valid http(s), plain http only to this machine) are trust/base-url.ts's.
 */
export function checkBaseUrl(label: string, url: string): string {
  const problem = baseUrlProblem(url);
  if (problem) throw new Error(`${label}: ${problem}`);
  return url;
}

/** "terminated (other side closed, UND_ERR_SOCKET)": the message plus what its causes add. */
export function describeCause(err: unknown): string {
  const parts: string[] = [];
  let cur: unknown = err;
  for (let depth = 0; cur && depth < 4; depth++) {
    const e = cur as { message?: unknown; code?: unknown; cause?: unknown };
    for (const piece of [e.message, e.code]) {
      if (typeof piece === 'string' && piece && !parts.some((p) => p.includes(piece))) parts.push(piece);
    }
    cur = e.cause;
  }
  if (parts.length === 0) return String(err);
  const [head, ...rest] = parts;
  return rest.length ? `${head} (${rest.join(', ')})` : (head as string);
}

/** What a provider tells `classifySdkError` about its SDK (each SDK has its own error classes). */
export interface SdkErrors {
  Timeout: abstract new (...args: never[]) => Error;
  Connection: abstract new (...args: never[]) => Error;
  /** An API error's status, text and (for an error event in a 200 stream) type; else undefined. */
  apiError(err: unknown): { status?: number; detail: string; type?: string } | undefined;
}

/** One wording for every SDK failure: timeout, network error, HTTP status, error in a stream. */
export function classifySdkError(label: string, err: unknown, sdk: SdkErrors): ModelProviderError {
  if (err instanceof sdk.Timeout)
    return new ModelProviderError(`${label}: request timed out`, { cause: err });
  if (err instanceof sdk.Connection) {
    return new ModelProviderError(`${label}: network error: ${describeCause(err.cause ?? err)}`, {
      cause: err,
    });
  }
  const api = sdk.apiError(err);
  if (!api) return streamFailure(label, err);
  if (api.status) {
    return new ModelProviderError(`${label}: HTTP ${api.status}: ${api.detail}`, {
      status: api.status,
      cause: err,
    });
  }
  // An error inside a 200 stream (an `event: error`, or a data line carrying `{"error": …}`).
  const type = api.type ? ` (${api.type})` : '';
  return new ModelProviderError(`${label}: stream error${type}: ${api.detail}`, { cause: err });
}

/** The SDKs prefix their own message with the status; the status is said separately. */
export function withoutStatus(message: string, status: number | undefined): string {
  const prefix = status ? `${status} ` : '';
  return message.startsWith(prefix) ? message.slice(prefix.length) : message;
}

/** Failures that are not the SDK's API/connection errors: bad JSON in the stream, a dropped socket. */
export function streamFailure(label: string, err: unknown): ModelProviderError {
  if (err instanceof SyntaxError) {
    return new ModelProviderError(`${label}: malformed stream: event data is not JSON (${err.message})`, {
      cause: err,
    });
  }
  return new ModelProviderError(`${label}: request failed: ${describeCause(err)}`, { cause: err });
}

/** Tool arguments must be a JSON object; anything else names the tool so the failure is findable. */
export function parseToolArguments(label: string, toolName: string, raw: string): Record<string, unknown> {
  if (raw.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new ModelProviderError(
      `${label}: tool call "${toolName}" has invalid JSON arguments: ${clip(raw)}`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ModelProviderError(
      `${label}: tool call "${toolName}" arguments are not a JSON object: ${clip(raw)}`,
    );
  }
  return value as Record<string, unknown>;
}

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
