// How a secret looks outside the gateway: at most its last 4 characters behind a fixed mask, and
// nothing at all for a short one (4 of 6 characters would give most of it away). The renderer uses
// the same function to recognise a value it was shown and did not change.

export const SECRET_MASK = '••••';
const HINT_CHARS = 4;
const HINT_MIN_LENGTH = 12;

/** The last 4 characters of a secret long enough to spare them, else an empty string. */
export function secretHint(secret: string): string {
  return secret.length >= HINT_MIN_LENGTH ? secret.slice(-HINT_CHARS) : '';
}

/** `••••abcd` (or `••••` for a short secret; an empty secret stays empty). */
export function maskSecret(secret: string): string {
  return secret === '' ? '' : SECRET_MASK + secretHint(secret);
}
