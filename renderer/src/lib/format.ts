import type { SessionView } from '../../../shared/ipc';
import { visible } from '../../../shared/visible';

export { visible };

export function time(ms: number): string {
  return new Date(ms).toLocaleTimeString(undefined, {
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
}

export function dateTime(ms: number): string {
  return new Date(ms).toLocaleString();
}

export function shortKey(key: string): string {
  const m = /^agent:[^:]+:(.+)$/.exec(key);
  return m ? m[1]! : key;
}

/** A session's name as shown: hidden characters made visible (shared/visible.ts). */
export function sessionTitle(s: Pick<SessionView, 'key' | 'label'>): string {
  return visible(s.label || shortKey(s.key));
}

export function tokens(n: number): string {
  return n >= 10_000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}
