import type { Cost, SessionView } from '../../../shared/ipc';
import { visible } from '../../../shared/visible';

export { visible };

/** A moment as people read it: the time today, the date and time on any other day. */
export function time(ms: number, now = Date.now()): string {
  const d = new Date(ms);
  const clock = d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  if (d.toDateString() === new Date(now).toDateString()) return clock;
  const day = d.toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: 'numeric' });
  return `${day}, ${clock}`;
}

/** "just now", "2 min ago", "3 h ago", "5 days ago" (the full date goes on hover: dateTime). */
export function ago(ms: number, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 45) return 'just now';
  if (s < 3600) return `${Math.max(1, Math.round(s / 60))} min ago`;
  if (s < 86_400) return `${Math.round(s / 3600)} h ago`;
  const d = Math.round(s / 86_400);
  return d === 1 ? 'yesterday' : `${d} days ago`;
}

/** The short form for a fleet row: "now", "2m", "3h", "5d". */
export function age(ms: number, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 45) return 'now';
  if (s < 3600) return `${Math.max(1, Math.round(s / 60))}m`;
  if (s < 86_400) return `${Math.round(s / 3600)}h`;
  return `${Math.round(s / 86_400)}d`;
}

/** Date and time: times on screen always carry their date. */
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

/**
 * Money as the agent reported it: dollars with their sign, other currencies by code; as many
 * digits as a small amount needs (an agent turn often costs a fraction of a cent).
 */
export function money(c: Cost): string {
  const digits =
    c.amount >= 1 ? 2 : c.amount >= 0.01 ? 3 : c.amount > 0 ? 2 - Math.floor(Math.log10(c.amount)) : 2;
  const n = c.amount.toFixed(Math.min(digits, 9));
  return c.currency === 'USD' ? `$${n}` : `${n} ${c.currency}`;
}

/** Costs in several currencies, side by side (never summed across currencies). */
export function moneyList(costs: readonly Cost[]): string {
  return costs.map(money).join(' + ');
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}
