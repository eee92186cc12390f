// The monitor's file events (issue 31): a local link read because its file changed (watch.ts), a
// paired node's pushed links (remote-check.ts), and the nodes' watch sets kept following the
// watched links. The rules are the check's, with one difference said at eventRules; the monitor
// (monitor.ts) owns the cadence, the misses and how an outcome is applied.
import type { Link, LinkRepo } from './links';
import type { ApplyOutcome, MonitorDeps, MonitorOwnership, PushedLinks } from './monitor';
import type { ProbeOutcome } from './provider';
import { textKey } from './kit/text';

function lazyOwn(links: LinkRepo, key: string): { has(k: string): boolean } {
  let set: Set<string> | undefined;
  return {
    has(k) {
      set ??= new Set(links.ownTexts(key).map(textKey));
      return set.has(k);
    },
  };
}

export type ApplyEvent = (l: Link, o: ProbeOutcome, deleted: boolean) => void;

/**
 * A link's outcome read because its file changed: the same as a check's, except that a watch
 * event never counts a miss, but a deletion event for a link without a streak: that is the
 * link's first check, run at once (later misses come from the cadence). Inconclusive reads are
 * left to the cadence, which logs them.
 */
export function eventRules(applyOne: ApplyOutcome): ApplyEvent {
  return (l, o, deleted) => {
    if (o.kind === 'inconclusive') return;
    if (o.kind === 'missing' && !(deleted && l.streak === 0)) return;
    applyOne(l, o);
  };
}

/** One local link read because its file changed (watch.ts), between checks: its fresh row. */
export function checkOne(
  deps: MonitorDeps,
  ownership: MonitorOwnership,
  applyEvent: ApplyEvent,
  sessionKey: string,
  deleted: boolean,
): void {
  const l = deps.links.get(sessionKey);
  if (!l || !ownership.owns(sessionKey) || deps.remote?.isRemote(l.hostId) === true) return;
  const source = deps.sources.get(l.provider);
  if (!source) return;
  try {
    const o = source.probe(l.ref, l, {
      ownTexts: lazyOwn(deps.links, l.sessionKey),
      now: deps.now(),
      ...(deps.onMessages ? { visible: true } : {}),
    });
    applyEvent(l, o, deleted);
  } finally {
    source.endCheck?.();
  }
}

/** A node's pushed links (PushedLinks): their fresh rows, this node's and this gateway's. */
export function pushedLinks(
  deps: MonitorDeps,
  ownership: MonitorOwnership,
  applyEvent: ApplyEvent,
): PushedLinks {
  return {
    links(hostId, changed) {
      const list = [...changed.keys()].flatMap((key) => {
        const l = deps.links.get(key);
        return l && l.hostId === hostId && ownership.owns(key) ? [l] : [];
      });
      return { links: list, apply: (l, o) => applyEvent(l, o, changed.get(l.sessionKey) === true) };
    },
  };
}

/**
 * The watched links (`all`, links.watched()) followed by the nodes that push file events: each
 * such node's watch set gets its owned links between checks (new, re-adopted, moved markers,
 * gone), so its files are watched from the start, not from the first check.
 */
export function followRemote(deps: MonitorDeps, ownership: MonitorOwnership, all: readonly Link[]): void {
  const hosts = deps.remote?.stale?.(all) ?? [];
  if (hosts.length === 0) return;
  const byHost = new Map<string, Link[]>(hosts.map((h) => [h, []]));
  for (const l of all)
    if (byHost.has(l.hostId) && ownership.owns(l.sessionKey)) byHost.get(l.hostId)!.push(l);
  for (const [host, list] of byHost) deps.remote!.follow?.(host, list, all);
}
