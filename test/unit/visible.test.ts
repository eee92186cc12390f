// shared/visible.ts (issue 29.7): one function shows control, bidi-override and invisible
// characters as what they are, for the page, notifications and the native consent dialog.
import { describe, expect, it } from 'vitest';
import { createNotificationPolicy } from '../../shared/notification-policy';
import { hasHidden, visible } from '../../shared/visible';
import { sessionTitle } from '../../renderer/src/lib/format';

describe('visible()', () => {
  it('writes overrides, isolates, zero-width and control characters as escapes, line breaks as ⏎', () => {
    expect(visible('invoice\u202Etxt.exe')).toBe('invoice\\u202Etxt.exe');
    expect(visible('a\u2066b\u2069c\u200Bd\uFEFFe\u0007f\u0085g\u061Ch')).toBe(
      'a\\u2066b\\u2069c\\u200Bd\\uFEFFe\\u0007f\\u0085g\\u061Ch',
    );
    expect(visible('/src\nFolder: /safe')).toBe('/src⏎Folder: /safe');
    expect(visible('one\r\ntwo\rthree\u2028four')).toBe('one⏎two⏎three\\u2028four');
    expect(visible('tab\there')).toBe('tab\\u0009here');
    expect(visible('plain — ünïcödé ✓ 日本')).toBe('plain — ünïcödé ✓ 日本');
    expect(hasHidden('a\u202Eb')).toBe(true);
    expect(hasHidden('plain')).toBe(false);
  });

  it('is what the page shows as a session name and what a notification says', () => {
    expect(sessionTitle({ key: 'agent:main:subagent:abc', label: 'fix\u202Eexe.txt' })).toBe(
      'fix\\u202Eexe.txt',
    );
    const policy = createNotificationPolicy({
      now: () => 1_000_000,
      prefs: () => ({
        waiting: true,
        failed: true,
        finished: true,
        upstreamMissing: true,
        longRunSeconds: 60,
      }),
      label: () => 'pay\u202Efdp.exe',
      viewing: () => undefined,
    } as never);
    const [n] = policy.decide([
      {
        type: 'session:status',
        sessionKey: 'agent:main:x',
        status: { status: 'waiting', reason: 'asks \u2066you' },
      } as never,
    ]);
    expect(n?.title).toBe('pay\\u202Efdp.exe is waiting for you');
    expect(n?.body).toBe('asks \\u2066you');
  });
});
