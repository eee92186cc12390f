// Where an agent's API key is sent. A base URL is the key's destination, so it is checked in one
// place: a valid http(s) URL, plain http only to this machine (a key in clear text over a network
// is a key given away), and a change of destination (another scheme, host or port, including a
// provider's default) needs the key again: a stored key never follows a URL to a new host.
import type { ProviderId } from '../types';

export const DEFAULT_BASE_URL: Partial<Record<ProviderId, string>> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
};

/** 127.0.0.0/8, ::1 and localhost (with its subdomains, which resolve to this machine). */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return (
    h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h)
  );
}

/** What is wrong with a base URL, or undefined when it may receive a key. */
export function baseUrlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `base URL "${url}" is not a valid URL`;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    return `base URL "${url}" must start with http:// or https://`;
  if (parsed.username || parsed.password) return `base URL "${url}" must not carry a user name or password`;
  if (parsed.protocol === 'http:' && !isLoopbackHost(parsed.hostname))
    return `base URL "${url}" uses plain http to another machine: use https (http is only for this machine)`;
  return undefined;
}

/** The origin the key goes to: of the base URL, or of the provider's default; undefined for none. */
export function keyDestination(provider: ProviderId, baseUrl: string | undefined): string | undefined {
  const url = baseUrl?.trim() || DEFAULT_BASE_URL[provider];
  if (!url) return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}
