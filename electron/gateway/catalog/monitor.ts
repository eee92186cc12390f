// The upstream monitor: one check over every watched upstream link. Per link it reads only what
// was added since the marker, records at most one human_direct_message, and advances the marker
// only after that record succeeded. Missing sources count a streak; three consecutive misses
// record one upstream_missing and remove the link. Any other conclusive outcome resets the streak;
// an I/O error other than not-found is inconclusive: it neither counts nor resets (a flaky
// permission or a busy disk says nothing about deletion, and must not hide a real streak either).
// With several gateways on one database, only the gateway that runs an adopted session checks its
// link, and the check's writes (record, marker, streak, removal) are fenced: refused once another
// gateway holds the session.
import type { Logger, SessionState } from '../types';
import type { Link, LinkRepo } from './links';
import type { ProbeOutcome, ProviderSource, VisibleMessage } from './provider';
import { textKey } from './kit/text';
import { checkOne, eventRules, followRemote, pushedLinks } from './monitor-events';

export const MISSING_CHECKS = 3;
export const PROVIDER_BUDGET_MS = 45_000;

export interface MonitorDeps {
  links: LinkRepo;
  state: SessionState;
  now: () => number;
  logger: Logger;
  /** The registered providers' sources, by provider id. */
  sources: ReadonlyMap<string, ProviderSource>;
  /** Wall-clock budget per provider and check (default 45 s). */
  budgetMs?: number;
  /**
   * Addition (live transcripts): called with the visible messages of the rows a check consumed,
   * right after the marker moved past them, in the same transaction (see `transaction`). When set,
   * probes map rows to messages.
   */
  onMessages?(link: Link, messages: VisibleMessage[]): void;
  /** Addition: which links this gateway checks (default: every link; ownership/). */
  ownership?: MonitorOwnership;
  /**
   * Addition (paired nodes): links whose host is a node are checked over the link, each node on
   * its own and bounded, while the local links are checked here; one slow node delays nobody.
   */
  remote?: RemoteChecks;
  /**
   * Addition: runs one link's outcome (its record, its messages, its marker) as one transaction,
   * so a crash or a failing write never keeps the messages without the marker (shown twice at the
   * next check) or the marker without the messages (dropped). Default: no transaction.
   */
  transaction?<T>(fn: () => T): T;
}

export interface MonitorOwnership {
  owns(sessionKey: string): boolean;
  fenced<T>(sessionKey: string, write: () => T): T;
}

const EVERY_LINK: MonitorOwnership = { owns: () => true, fenced: (_key, write) => write() };

/** Whether applying the outcome writes nothing (then it needs no fenced transaction). */
const readOnly = (l: Link, o: ProbeOutcome): boolean =>
  o.kind === 'inconclusive' ||
  (o.kind === 'activity' && o.turns === 0 && !o.changed && l.streak === 0 && !o.messages?.length);

export type ApplyOutcome = (l: Link, o: ProbeOutcome) => void;

export interface RemoteChecks {
  isRemote(hostId: string): boolean;
  check(hostId: string, links: Link[], apply: ApplyOutcome, cancelled: () => boolean): Promise<void>;
  /** Addition (issue 31): where a node's pushed file events find their links and rules. */
  onPushed?(links: PushedLinks): void;
  /** Addition (issue 31): the nodes online whose watch set has not followed `all` yet. */
  stale?(all: readonly Link[]): string[];
  /** Addition (issue 31): brings a node's watch set to `links` (its share of `all`), files watched. */
  follow?(hostId: string, links: Link[], all: readonly Link[]): void;
}

/**
 * The links a node said changed (session key → a deletion among the events): their fresh rows
 * (this gateway's, that node's), and the outcome rules of a file event (monitor.checkOne's).
 */
export interface PushedLinks {
  links(hostId: string, changed: ReadonlyMap<string, boolean>): { links: Link[]; apply: ApplyOutcome };
}

/** `all` starting at the first link at or after `from` (a check that ran out of budget resumes there). */
export function rotate(all: Link[], from: string | undefined): Link[] {
  if (from === undefined) return all;
  const cut = Math.max(
    0,
    all.findIndex((l) => l.sessionKey >= from),
  );
  return [...all.slice(cut), ...all.slice(0, cut)];
}

/**
 * One probe context for a whole check, pointed at each link in turn (`at`): a check over 10,000
 * idle links allocates no context per link. The own texts are read only when a probe asks.
 */
function checkContext(links: LinkRepo, now: number, visible: boolean) {
  let key = '';
  let set: Set<string> | undefined;
  const ownTexts = {
    has(k: string): boolean {
      set ??= new Set(links.ownTexts(key).map(textKey));
      return set.has(k);
    },
  };
  const ctx = { ownTexts, now, ...(visible ? { visible: true } : {}) };
  return {
    at(sessionKey: string): typeof ctx {
      key = sessionKey;
      set = undefined;
      return ctx;
    },
  };
}

/** Three consecutive misses record one upstream_missing and remove the link; fewer count. */
function applyMissing(deps: MonitorDeps, l: Link, t: number): void {
  const streak = l.streak + 1;
  if (streak < MISSING_CHECKS) {
    deps.links.saveStreak(l, streak, t);
    return;
  }
  const ev = deps.state.record({
    sessionKey: l.sessionKey,
    kind: 'upstream_missing',
    actorType: 'system',
    summary: `upstream missing via ${l.provider}`,
    payload: { channel: l.provider },
    dedupeKey: `upstream-missing:${l.sessionKey}:${l.sourceHash}`,
  });
  if (ev) deps.links.remove(l);
  else deps.links.saveStreak(l, streak, t);
}

/** New human turns: one record, then the marker; the marker moves only after the record. */
function applyActivity(
  deps: MonitorDeps,
  l: Link,
  o: Extract<ProbeOutcome, { kind: 'activity' }>,
  t: number,
) {
  if (o.turns > 0) {
    const ev = deps.state.record({
      sessionKey: l.sessionKey,
      kind: 'human_direct_message',
      actorType: 'human',
      summary: `human message via ${l.provider}`,
      // Spec: `{turns}` when more than one; the channel is in the summary, not the payload.
      ...(o.turns > 1 ? { payload: { turns: o.turns } } : {}),
      ...(o.occurredAt !== undefined ? { occurredAt: o.occurredAt } : {}),
      dedupeKey: `upstream:${l.sessionKey}:${l.sourceHash}:${o.from}`,
    });
    // Not recorded: keep the marker, so the same bytes are classified again next check.
    if (!ev) {
      deps.logger.warn('catalog: could not record upstream activity; will retry', {
        sessionKey: l.sessionKey,
      });
      return;
    }
  }
  const moved = o.changed || o.turns > 0 || l.streak !== 0 ? deps.links.saveMarker(l, o.marker, t) : true;
  // A re-adoption raced this check (the marker was not saved): the new link reads them again.
  if (moved && o.messages?.length) deps.onMessages?.(l, o.messages);
}

/** One link's outcome: its record, marker, streak or removal. */
function applyOutcome(deps: MonitorDeps, l: Link, o: ProbeOutcome): void {
  const t = deps.now();
  switch (o.kind) {
    case 'inconclusive':
      deps.logger.warn('catalog: upstream check inconclusive', {
        sessionKey: l.sessionKey,
        provider: l.provider,
        error: String((o.error as Error)?.message ?? o.error),
      });
      return;
    case 'missing':
      return applyMissing(deps, l, t);
    case 'rebaseline':
      deps.logger.info('catalog: upstream source re-baselined', {
        sessionKey: l.sessionKey,
        reason: o.reason,
      });
      deps.links.saveMarker(l, o.marker, t);
      return;
    case 'activity':
      return applyActivity(deps, l, o, t);
  }
}

/** Links by provider (checked here) and by node (checked over the link). */
function partition(deps: MonitorDeps, all: Link[]) {
  const byProvider = new Map<string, Link[]>();
  const byHost = new Map<string, Link[]>();
  for (const l of all) {
    const remote = deps.remote?.isRemote(l.hostId) === true;
    const map = remote ? byHost : byProvider;
    const key = remote ? l.hostId : l.provider;
    const list = map.get(key);
    if (list) list.push(l);
    else map.set(key, [l]);
  }
  return { byProvider, byHost };
}

interface ProviderCheck {
  provider: string;
  list: Link[];
  budget: number;
  applyOne: ApplyOutcome;
  cancelled: () => boolean;
}

/**
 * One provider's links, in order, within its budget. Resolves with the link to resume at when
 * the budget ran out. Yields to the event loop between links once a few ms have passed.
 */
async function checkProvider(deps: MonitorDeps, c: ProviderCheck): Promise<string | undefined> {
  const { provider, list } = c;
  const started = performance.now();
  const source = deps.sources.get(provider);
  const ctx = checkContext(deps.links, deps.now(), deps.onMessages !== undefined);
  let sinceYield = performance.now();
  try {
    for (let i = 0; i < list.length; i++) {
      if (c.cancelled()) return undefined;
      // The first link always runs, so every provider makes progress on every check.
      if (i > 0 && performance.now() - started > c.budget) {
        deps.logger.warn('catalog: provider check over budget; the rest waits for the next check', {
          provider,
          left: list.length - i,
        });
        return list[i]!.sessionKey;
      }
      const l = list[i]!;
      try {
        const o: ProbeOutcome = source
          ? source.probe(l.ref, l, ctx.at(l.sessionKey))
          : { kind: 'inconclusive', error: new Error(`no catalog provider "${provider}"`) };
        c.applyOne(l, o);
      } catch (err) {
        deps.logger.error('catalog: upstream check failed', { sessionKey: l.sessionKey, error: String(err) });
      }
      if (performance.now() - sinceYield > 8) {
        await new Promise((r) => setImmediate(r));
        sinceYield = performance.now();
      }
    }
    return undefined;
  } finally {
    try {
      source?.endCheck?.();
    } catch (err) {
      deps.logger.warn('catalog: closing a provider check failed', { provider, error: String(err) });
    }
  }
}

export function createMonitor(deps: MonitorDeps) {
  const { links, logger } = deps;
  const ownership = deps.ownership ?? EVERY_LINK;
  const budget = deps.budgetMs ?? PROVIDER_BUDGET_MS;
  const resumeAt = new Map<string, string>();
  const apply: ApplyOutcome = (l, o) => applyOutcome(deps, l, o);

  /**
   * One link's outcome, as one transaction when there is one (local and remote links alike); one
   * that writes is fenced: refused once another gateway runs the session.
   */
  function applyOne(l: Link, o: ProbeOutcome): void {
    if (readOnly(l, o)) return apply(l, o);
    ownership.fenced(l.sessionKey, () =>
      deps.transaction ? deps.transaction(() => apply(l, o)) : apply(l, o),
    );
  }

  /** One check. `cancelled` turns true when the catalog stops (the database may be closing). */
  async function tick(cancelled: () => boolean = () => false): Promise<void> {
    let all: Link[];
    try {
      all = links.watched().filter((l) => ownership.owns(l.sessionKey));
    } catch (err) {
      logger.error('catalog: cannot list upstream links', { error: String(err) });
      return;
    }
    const { byProvider, byHost } = partition(deps, all);
    const remote = Promise.all(
      [...byHost].map(([host, list]) =>
        deps.remote!.check(host, list, applyOne, cancelled).catch((err: unknown) => {
          logger.error('catalog: node check failed', { hostId: host, error: String(err) });
        }),
      ),
    );
    try {
      for (const [provider, all] of byProvider) {
        // After a check that ran out of budget, start where it stopped so no link starves.
        const list = rotate(all, resumeAt.get(provider));
        resumeAt.delete(provider);
        const resume = await checkProvider(deps, { provider, list, budget, applyOne, cancelled });
        if (resume !== undefined) resumeAt.set(provider, resume);
        if (cancelled()) return;
      }
    } finally {
      await remote;
    }
  }

  const applyEvent = eventRules(applyOne);

  // A node's pushed events (remote-check.ts): the same rules, over the link.
  deps.remote?.onPushed?.(pushedLinks(deps, ownership, applyEvent));

  return {
    tick,
    apply,
    /** One local link read because its file changed (watch.ts), between checks. */
    checkOne: (sessionKey: string, deleted: boolean) =>
      checkOne(deps, ownership, applyEvent, sessionKey, deleted),
    followRemote: (all: readonly Link[]) => followRemote(deps, ownership, all),
  };
}
