// Credential-like text masked before a transcript leaves through the session tools (issue 29.2):
// another agent reading a session (`sessions_history`) never gets the API key, token, private key
// or URL password a person or tool wrote there. Each find is replaced by MASKED and counted, so
// the reader is told how much was masked. Patterns are the well-known shapes; a secret without
// any recognisable shape cannot be told from text.

export const MASKED = '[masked credential]';

const RULES: { re: RegExp; keep?: (m: string, ...groups: string[]) => string }[] = [
  // PEM private keys, also cut off by a truncated text.
  { re: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g },
  // A password in a URL: scheme://user:password@host keeps the user and host.
  {
    re: /\b([a-z][a-z0-9+.-]{1,20}:\/\/[^\s:/@]{1,200}:)([^\s@/]{1,400})@/gi,
    keep: (_m, head) => `${head}${MASKED}@`,
  },
  // Bearer and Basic authorisation values.
  { re: /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/-]{12,}=*/g, keep: (_m, scheme) => `${scheme} ${MASKED}` },
  // Keys with a vendor prefix: OpenAI/Anthropic sk-, GitHub, GitLab, Slack, AWS, Google, Hugging
  // Face, npm, Stripe, Sightline's own MCP secrets; JSON Web Tokens.
  {
    re: /\b(?:sk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{16,}|xox[abposr]-[A-Za-z0-9-]{10,}|(?:AKIA|ASIA)[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35}|hf_[A-Za-z0-9]{20,}|npm_[A-Za-z0-9]{30,}|[rs]k_(?:live|test)_[A-Za-z0-9]{16,}|slmcp_[A-Za-z0-9_-]{20,}|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})/g,
  },
  // NAME=value / "name": "value" where the name says it is a secret.
  {
    re: /\b([A-Za-z0-9_.-]*(?:api[_-]?key|secret|token|passw(?:or)?d|private[_-]?key|access[_-]?key|credential)[A-Za-z0-9_.-]*["']?\s*[:=]\s*)(["']?)([^\s"',;[]{6,})\2/gi,
    keep: (_m, head, quote) => `${head}${quote}${MASKED}${quote}`,
  },
];

/** `text` with credential-like parts masked, and how many were. */
export function maskCredentials(text: string): { text: string; masked: number } {
  let masked = 0;
  let out = text;
  for (const rule of RULES) {
    out = out.replace(rule.re, (m: string, ...rest: unknown[]) => {
      if (m.includes(MASKED) && !rule.keep) return m;
      const groups = rest.filter((g): g is string => typeof g === 'string');
      const next = rule.keep ? rule.keep(m, ...groups) : MASKED;
      if (next !== m) masked += 1;
      return next;
    });
  }
  return { text: out, masked };
}

/** The same for any JSON value (a tool call's arguments): every string in it. */
export function maskCredentialsDeep<T>(value: T): { value: T; masked: number } {
  let masked = 0;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const r = maskCredentials(v);
      masked += r.masked;
      return r.text;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object')
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  const out = walk(value) as T;
  return { value: out, masked };
}
