// Adoption: a catalog session becomes a Sightline session with an upstream link. Everything that
// can fail without changing anything (finding the thread, its baseline marker, the transcript to
// import) happens first; the writes then happen together in `writeAdoption`, in one transaction
// (a crash leaves all of them or none; push events follow the commit).
import { adoptedKeyFor } from '../../../shared/session-keys';
import { notFound } from '../errors';
import type { CatalogProvider, Logger, SessionInfo, SessionState, Sessions } from '../types';
import type { LinkRepo } from './links';
import type { Located, MarkerFields, ProviderModule, ProviderSource, VisibleMessage } from './provider';
import { checkThreadId } from './thread-ids';

export const ADOPTING_WATCHER = 'agent:main:main';
/** At most this many messages of the upstream transcript are imported at adoption. */
export const IMPORT_MESSAGES = 500;

export const adoptedKey = adoptedKeyFor;

export interface AdoptDeps {
  sessions: Sessions;
  state: SessionState;
  links: LinkRepo;
  logger: Logger;
  now: () => number;
  hostId: string;
  importTranscript(sessionKey: string, messages: VisibleMessage[]): void;
  /** Runs `fn` as one transaction (nested: a savepoint); the gateway's defers events to the commit. */
  transaction<T>(fn: () => T): T;
}

export interface Adoption {
  key: string;
  provider: ProviderModule;
  loc: Located;
  marker: MarkerFields;
  /** Read before any write; imported only when the session is new. */
  transcript: VisibleMessage[];
}

/**
 * What a person would look for: the transcript file, else the tool's database or data folder (a
 * paired node's ref is its word only: anything but a plausible path is left out, not refused).
 */
function sourceOf(ref: Located['ref']): string | undefined {
  return plausiblePath(ref.path ?? ref.db ?? ref.dataDir);
}

/** A folder or file named by a transcript or a node: a string the session store takes, or nothing. */
function plausiblePath(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 && v.length <= 4096 ? v : undefined;
}

/**
 * Every write of one adoption: session (and its transcript) if new, `adopted`, link, watch.
 * `d.hostId` is where the session lives: this machine, or a paired node (catalog/remote.ts).
 */
export function writeAdoption(d: AdoptDeps, a: Adoption): SessionInfo {
  let info = d.sessions.get(a.key);
  if (!info) {
    // The folder and the source in the session itself: its header names them, and the alert
    // names the source once the upstream link is gone.
    const source = sourceOf(a.loc.ref);
    const cwd = plausiblePath(a.loc.entry.cwd);
    info = d.sessions.create({
      key: a.key,
      label: a.loc.entry.title,
      ...(cwd ? { cwd } : {}),
      ...(source ? { source } : {}),
    });
    try {
      // Its own savepoint: a failed import leaves no half transcript, and the adoption goes on.
      d.transaction(() => d.importTranscript(a.key, a.transcript));
    } catch (err) {
      d.logger.warn('catalog: transcript import failed', { sessionKey: a.key, error: String(err) });
    }
  }
  d.state.record({
    sessionKey: a.key,
    kind: 'adopted',
    actorType: 'human',
    summary: `adopted from ${a.provider.id}`,
    payload: { catalogId: a.provider.id, hostId: d.hostId },
  });
  d.links.put(
    {
      sessionKey: a.key,
      provider: a.provider.id,
      threadId: a.loc.entry.threadId,
      hostId: d.hostId,
      ref: a.loc.ref,
      // The folder the person saw in the catalog when adopting: the only one "continue" runs in.
      cwd: a.loc.entry.cwd ?? null,
      ...a.marker,
    },
    d.now(),
  );
  d.state.registerWatch(ADOPTING_WATCHER, a.key);
  return d.sessions.get(a.key) ?? info;
}

export function createAdopt(
  d: AdoptDeps,
  providers: ReadonlyMap<string, { module: ProviderModule; source: ProviderSource; root: string }>,
) {
  return function adopt(input: { provider: CatalogProvider | string; threadId: string }): SessionInfo {
    const id = input?.provider;
    const threadId = typeof input?.threadId === 'string' ? input.threadId.trim() : '';
    const p = typeof id === 'string' ? providers.get(id) : undefined;
    if (!p) throw notFound(`Unknown catalog provider: ${String(id)}`);
    if (!threadId) throw new Error('threadId is required');
    checkThreadId(p.module, threadId);
    const loc = p.source.find(threadId);
    if (!loc) throw notFound(`Unknown thread: ${p.module.id} session ${threadId} was not found in ${p.root}`);
    const key = adoptedKey(p.module.id, loc.entry.threadId);
    const marker = p.source.baseline(loc.ref);
    let transcript: VisibleMessage[] = [];
    if (!d.sessions.get(key)) {
      try {
        transcript = p.source.readTail(loc.ref, IMPORT_MESSAGES);
      } catch (err) {
        d.logger.warn('catalog: transcript import failed', { sessionKey: key, error: String(err) });
      }
    }
    return d.transaction(() => writeAdoption(d, { key, provider: p.module, loc, marker, transcript }));
  };
}
