// The upstream monitor: one check over every watched upstream link. Per link it reads only what
// was added since the marker, records at most one human_direct_message, and advances the marker
// only after that record succeeded. Missing sources count a streak; three consecutive misses
// record one upstream_missing and remove the link. Any other conclusive outcome resets the streak;
// an I/O error other than not-found is inconclusive: it neither counts nor resets (a flaky
// permission or a busy disk says nothing about deletion, and must not hide a real streak either).
import type { CatalogProvider, Logger, SessionState } from '../types';
import { claudeRules } from './claude-rules';
import { codexRules } from './codex-rules';
import { codexExistsElsewhere } from './codex';
import type { CatalogFs } from './fsio';
import { probeJsonl, type JsonlMarker, type ProbeOutcome } from './jsonl-probe';
import type { Link, LinkRepo, MarkerFields } from './links';
import { OpencodeDbReader, probeOpencodeJson, type OcMarker, type OcOutcome } from './opencode';
import { piRules } from './pi-rules';
import type { ScanState } from './row-scanner';
import type { RowRules } from './rules';
import { textKey } from './text';

export const MISSING_CHECKS = 3;
export const PROVIDER_BUDGET_MS = 45_000;

const RULES: Record<Exclude<CatalogProvider, 'opencode'>, RowRules> = {
  claude: claudeRules,
  codex: codexRules,
  pi: piRules,
};

export interface MonitorDeps {
  links: LinkRepo;
  state: SessionState;
  now: () => number;
  logger: Logger;
  fs: CatalogFs;
  codexRoot: string;
  /** Wall-clock budget per provider and check (default 45 s). */
  budgetMs?: number;
}

type Outcome =
  | { kind: 'missing' }
  | { kind: 'inconclusive'; error: unknown }
  | { kind: 'rebaseline'; marker: MarkerFields; reason: string }
  | {
      kind: 'activity';
      turns: number;
      marker: MarkerFields;
      changed: boolean;
      from: string;
      occurredAt?: number;
    };

function lazyOwn(links: LinkRepo, key: string): { has(k: string): boolean } {
  let set: Set<string> | undefined;
  return {
    has(k) {
      set ??= new Set(links.ownTexts(key).map(textKey));
      return set.has(k);
    },
  };
}

function jsonlMarker(l: Link): JsonlMarker {
  const pend = l.scanState ? (JSON.parse(l.scanState) as { at: number; st: ScanState }) : null;
  const seen = l.markerJson ? (JSON.parse(l.markerJson) as { seen?: string[] }).seen : undefined;
  return { offset: l.offset, ino: l.inode, pend, ...(seen?.length ? { seen } : {}) };
}

function fromJsonl(o: ProbeOutcome, prev: JsonlMarker): Outcome {
  const fields = (m: JsonlMarker): MarkerFields => ({
    offset: m.offset,
    inode: m.ino,
    markerJson: m.seen?.length ? JSON.stringify({ seen: m.seen }) : null,
    scanState: m.pend ? JSON.stringify(m.pend) : null,
  });
  switch (o.kind) {
    case 'missing':
    case 'inconclusive':
      return o;
    case 'rebaseline':
      return { kind: 'rebaseline', marker: fields(o.next), reason: o.reason };
    case 'activity':
      return {
        kind: 'activity',
        turns: o.turns,
        marker: fields(o.next),
        changed: o.changed,
        from: prev.pend ? `${prev.offset}@${prev.pend.at}` : String(prev.offset),
        ...(o.occurredAt !== undefined ? { occurredAt: o.occurredAt } : {}),
      };
  }
}

function fromOpencode(o: OcOutcome, prev: OcMarker): Outcome {
  if (o.kind !== 'activity') return o;
  return {
    kind: 'activity',
    turns: o.turns,
    marker: { offset: 0, inode: null, markerJson: JSON.stringify(o.next), scanState: null },
    changed: o.changed,
    from: `${prev.messageId ?? ''}@${prev.createdAt}`,
    ...(o.occurredAt !== undefined ? { occurredAt: o.occurredAt } : {}),
  };
}

export function createMonitor(deps: MonitorDeps) {
  const { links, state, now, logger } = deps;
  const budget = deps.budgetMs ?? PROVIDER_BUDGET_MS;
  const resumeAt = new Map<CatalogProvider, string>();

  function apply(l: Link, o: Outcome): void {
    const t = now();
    switch (o.kind) {
      case 'inconclusive':
        logger.warn('catalog: upstream check inconclusive', {
          sessionKey: l.sessionKey,
          provider: l.provider,
          error: String((o.error as Error)?.message ?? o.error),
        });
        return;
      case 'missing': {
        const streak = l.streak + 1;
        if (streak < MISSING_CHECKS) {
          links.saveStreak(l, streak, t);
          return;
        }
        const ev = state.record({
          sessionKey: l.sessionKey,
          kind: 'upstream_missing',
          actorType: 'system',
          summary: `upstream missing via ${l.provider}`,
          payload: { channel: l.provider },
          dedupeKey: `upstream-missing:${l.sessionKey}:${l.sourceHash}`,
        });
        if (ev) links.remove(l);
        else links.saveStreak(l, streak, t);
        return;
      }
      case 'rebaseline':
        logger.info('catalog: upstream source re-baselined', { sessionKey: l.sessionKey, reason: o.reason });
        links.saveMarker(l, o.marker, t);
        return;
      case 'activity': {
        if (o.turns > 0) {
          const ev = state.record({
            sessionKey: l.sessionKey,
            kind: 'human_direct_message',
            actorType: 'human',
            summary: `human message via ${l.provider}`,
            payload: o.turns > 1 ? { channel: l.provider, turns: o.turns } : { channel: l.provider },
            ...(o.occurredAt !== undefined ? { occurredAt: o.occurredAt } : {}),
            dedupeKey: `upstream:${l.sessionKey}:${l.sourceHash}:${o.from}`,
          });
          // Not recorded: keep the marker, so the same bytes are classified again next check.
          if (!ev) {
            logger.warn('catalog: could not record upstream activity; will retry', {
              sessionKey: l.sessionKey,
            });
            return;
          }
        }
        if (o.changed || o.turns > 0 || l.streak !== 0) links.saveMarker(l, o.marker, t);
        return;
      }
    }
  }

  function checkJsonl(l: Link): Outcome {
    if (l.ref.kind !== 'file' || l.provider === 'opencode')
      return { kind: 'inconclusive', error: new Error('bad link source') };
    const prev = jsonlMarker(l);
    const file = l.ref.path;
    const o = probeJsonl({
      file,
      marker: prev,
      rules: RULES[l.provider],
      ownTexts: lazyOwn(links, l.sessionKey),
      fs: deps.fs,
      ...(l.provider === 'codex'
        ? { existsElsewhere: () => codexExistsElsewhere(deps.fs, deps.codexRoot, file) }
        : {}),
    });
    return fromJsonl(o, prev);
  }

  /** One check. `cancelled` turns true when the catalog stops (the database may be closing). */
  async function tick(cancelled: () => boolean = () => false): Promise<void> {
    let all: Link[];
    try {
      all = links.watched();
    } catch (err) {
      logger.error('catalog: cannot list upstream links', { error: String(err) });
      return;
    }
    const byProvider = new Map<CatalogProvider, Link[]>();
    for (const l of all) {
      const list = byProvider.get(l.provider);
      if (list) list.push(l);
      else byProvider.set(l.provider, [l]);
    }
    for (const [provider, all] of byProvider) {
      // After a check that ran out of budget, start where it stopped so no link starves.
      const from = resumeAt.get(provider);
      const cut =
        from === undefined
          ? 0
          : Math.max(
              0,
              all.findIndex((l) => l.sessionKey >= from),
            );
      const list = [...all.slice(cut), ...all.slice(0, cut)];
      resumeAt.delete(provider);
      const started = performance.now();
      const readers = new Map<string, OpencodeDbReader>();
      let sinceYield = performance.now();
      try {
        for (let i = 0; i < list.length; i++) {
          if (cancelled()) return;
          // The first link always runs, so every provider makes progress on every check.
          if (i > 0 && performance.now() - started > budget) {
            resumeAt.set(provider, list[i]!.sessionKey);
            logger.warn('catalog: provider check over budget; the rest waits for the next check', {
              provider,
              left: list.length - i,
            });
            break;
          }
          const l = list[i]!;
          let o: Outcome;
          try {
            if (l.ref.kind === 'opencode-db') {
              const prev = l.markerJson
                ? (JSON.parse(l.markerJson) as OcMarker)
                : { messageId: null, createdAt: 0 };
              let r = readers.get(l.ref.db);
              if (!r) readers.set(l.ref.db, (r = new OpencodeDbReader(l.ref.db)));
              o = fromOpencode(r.probe(l.ref.sessionId, prev, lazyOwn(links, l.sessionKey), now()), prev);
            } else if (l.ref.kind === 'opencode-json') {
              const prev = l.markerJson
                ? (JSON.parse(l.markerJson) as OcMarker)
                : { messageId: null, createdAt: 0 };
              o = fromOpencode(probeOpencodeJson(l.ref, prev, lazyOwn(links, l.sessionKey), now()), prev);
            } else o = checkJsonl(l);
            apply(l, o);
          } catch (err) {
            logger.error('catalog: upstream check failed', { sessionKey: l.sessionKey, error: String(err) });
          }
          // Never hold the main thread for long: yield between links once a few ms have passed.
          if (performance.now() - sinceYield > 8) {
            await new Promise((r) => setImmediate(r));
            sinceYield = performance.now();
          }
        }
      } finally {
        for (const r of readers.values()) r.close();
      }
    }
  }

  return { tick };
}
