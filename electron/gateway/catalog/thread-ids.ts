// Upstream ids are data, never flags. A thread id comes from a file name or a transcript row, both
// written by somebody else: a transcript named `--dangerously-skip-permissions.jsonl` would
// otherwise become a "thread id" that reaches the tool's CLI as an option. Every provider says what
// its ids look like (ProviderModule.threadId); anything else is not listed, not adopted and never
// put on a command line.
import { invalidArgument } from '../errors';
import type { ProviderModule, ProviderSource } from './provider';

export function isThreadId(m: ProviderModule, id: unknown): id is string {
  return typeof id === 'string' && m.threadId.test(id);
}

/** The id itself, or a clear refusal naming the tool. */
export function checkThreadId(m: ProviderModule, id: string): string {
  if (m.threadId.test(id)) return id;
  throw invalidArgument(`Not a ${m.label} session id: ${JSON.stringify(id.slice(0, 200))}`);
}

/** The source as the catalog uses it: sessions with ids of another shape do not exist. */
export function guardSource(m: ProviderModule, source: ProviderSource): ProviderSource {
  return {
    ...source,
    describe: (unit) => source.describe(unit).filter((l) => isThreadId(m, l.entry.threadId)),
    find(threadId) {
      if (!isThreadId(m, threadId)) return undefined;
      const loc = source.find(threadId);
      return loc && isThreadId(m, loc.entry.threadId) ? loc : undefined;
    },
  };
}
