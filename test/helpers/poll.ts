// The one polling helper, for what only real time can show (child processes, sockets, the
// scripted model's own pauses). Anything the gateway schedules is driven by FakeClock instead.
/**
 * Resolves with the first truthy value of `fn` (which may be async); a throw counts as "not
 * yet". Fails after `timeoutMs` naming `what` and the last value or error seen.
 */
export async function waitFor<T>(
  fn: () => T | Promise<T>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as NonNullable<T>;
      last = v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > end) {
      const seen = last instanceof Error ? last.message : JSON.stringify(last);
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${seen})`);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}
