// shared/mask-credentials.ts (issue 29.2): what sessions_history masks, and that it counts.
import { describe, expect, it } from 'vitest';
import { MASKED, maskCredentials, maskCredentialsDeep } from '../../shared/mask-credentials';

describe('maskCredentials', () => {
  it('masks API keys, tokens, private keys and passwords in URLs, and counts each', () => {
    const cases: [string, string][] = [
      ['export ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijklmnopqrstuv', `export ANTHROPIC_API_KEY=${MASKED}`],
      ['git clone https://bob:hunter2pass@github.com/x/y', `git clone https://bob:${MASKED}@github.com/x/y`],
      ['Authorization: Bearer abcdefghijklmnopqrstuvwxyz', `Authorization: Bearer ${MASKED}`],
      ['{"password": "s3cretpw"}', `{"password": "${MASKED}"}`],
      ['-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----', MASKED],
      ['cut off: -----BEGIN RSA PRIVATE KEY-----\nMIIEow', `cut off: ${MASKED}`],
      ['use ghp_abcdefghijklmnopqrstuvwxyz0123 here', `use ${MASKED} here`],
      ['AKIAABCDEFGHIJKLMNOP', MASKED],
      ['slmcp_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', MASKED],
      ['jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N', `jwt ${MASKED}`],
    ];
    for (const [text, masked] of cases) expect(maskCredentials(text)).toEqual({ text: masked, masked: 1 });
  });

  it('leaves ordinary text alone, and hostile input stays bounded', () => {
    for (const text of ['plain text about tokens and keys', 'see https://example.com/a@b', 'sk-short', ''])
      expect(maskCredentials(text)).toEqual({ text, masked: 0 });
    const long = `${'a'.repeat(100_000)}:${'b'.repeat(100_000)}@`;
    // Bounded patterns: no catastrophic backtracking (the test's timeout would catch it).
    expect(maskCredentials(`https://${long}`).masked).toBe(0);
    expect(maskCredentials('-----BEGIN PRIVATE KEY-----'.repeat(2000))).toEqual({ text: MASKED, masked: 1 });
  });

  it('masks every string of a tool call’s arguments', () => {
    expect(
      maskCredentialsDeep({ cmd: 'curl -H "Authorization: Bearer abcdefghijklmnopqrst"', n: 1 }),
    ).toEqual({
      value: { cmd: `curl -H "Authorization: Bearer ${MASKED}"`, n: 1 },
      masked: 1,
    });
  });
});
