// The spec's words for every suite, written out as session-state-awareness.md states them (never
// computed by product code, so a test compares the product against the spec, not against itself):
// the main session's key, the notice a watcher gets, its context key; and the suites' clock.
export const MAIN = 'agent:main:main';

/** The suites' start time (a FakeClock's first reading) and its units. */
export const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
export const HOUR = 60 * 60 * 1000;
export const DAY = 24 * HOUR;

/** The one notice text of the spec (§ notices): what a watcher reads before its next turn. */
export function noticeText(target: string, changesSince: number): string {
  return `Session "${target}" changed (other actor). Reconcile before acting: session_status sessionKey "${target}" changesSince ${changesSince}.`;
}

/** The lower-case hex of the UTF-8 bytes of a key, as the spec's context key carries it. */
export function contextKeyOf(target: string): string {
  return `session-state:${Buffer.from(target, 'utf8').toString('hex')}`;
}

/** A queued notice entry as the spec shapes it. */
export function noticeFor(target: string, changesSince: number): { text: string; contextKey: string } {
  return { text: noticeText(target, changesSince), contextKey: contextKeyOf(target) };
}
