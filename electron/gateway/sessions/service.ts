// `gateway.sessions` (contract): every session is created here, and reset and deleted here, each
// in one transaction; `session:changed` / `session:deleted` go out after the commit. What other
// domains keep per session (goals, runs, links…) is removed through their own owners, and what
// the runtime keeps in memory (turns, ACP agents) is forgotten after the commit.
import { normalizeSessionKey, parseSessionKey } from '../../../shared/session-keys';
import type { Transactions } from '../db/transactions';
import { notFound } from '../errors';
import type { NoticeQueues } from '../state/notice-queue';
import { resolveKey } from '../state/record-input';
import type { StateCore } from '../state/session-state';
import type { HeartbeatWaker } from '../state/waker';
import type { GatewayEvent, GatewaySessions, Sessions } from '../types';
import type { SessionStore } from './store';
import type { TranscriptStore } from './transcripts';

/** A domain that keeps rows per session deletes them inside the session's delete transaction. */
export interface SessionDataOwner {
  deleteSession(sessionKey: string): void;
}

export interface SessionsDeps {
  tx: Transactions;
  emit: (e: GatewayEvent) => void;
  store: SessionStore;
  transcripts: TranscriptStore;
  state: Pick<StateCore, 'removeCursorsHeldBy' | 'removeCursorsOn' | 'watchers'>;
  /** How many runs a session has (for `impact`). */
  countRuns(sessionKey: string): number;
  queues: NoticeQueues;
  waker: HeartbeatWaker;
  /** Other domains' per-session rows (goals, runs, …). */
  owners: SessionDataOwner[];
  /** In-memory state of a reset session (its running turn). */
  onReset(sessionKey: string): void;
  /** In-memory state of a deleted session (its turn, its ACP agent). */
  onDelete(sessionKey: string): void;
}

export type SessionsService = Sessions & Pick<GatewaySessions, 'impact' | 'archive'>;

export function createSessions(deps: SessionsDeps): SessionsService {
  const { tx, emit, store } = deps;
  return {
    create(input) {
      const info = store.create(input);
      emit({ type: 'session:changed', sessionKey: info.key });
      return info;
    },
    get: (key, agentId) => store.get(key, agentId),
    /** What a reset or delete of the session removes (the confirmation says so). */
    impact(key) {
      const info = store.get(key);
      if (!info) throw notFound(`Unknown sessionKey: ${key}`);
      const { watchedBy, watching } = deps.state.watchers(info.key);
      return {
        sessionKey: info.key,
        messages: deps.transcripts.size(info.key).n,
        cursorsHeld: watching.length,
        cursorsOn: watchedBy.length,
        children: store.children(info.key).length,
        upstreamLink: parseSessionKey(info.key).kind === 'adopted',
        runs: deps.countRuns(info.key),
      };
    },
    archive(key, archived = true) {
      const info = store.get(key);
      if (!info) throw notFound(`Unknown sessionKey: ${key}`);
      store.setArchived(info.key, info.agentId, archived);
      emit({ type: 'session:changed', sessionKey: info.key });
      return store.get(info.key, info.agentId)!;
    },
    list: () => store.list(),
    reset(key) {
      const k = normalizeSessionKey(key);
      tx.run(() => {
        deps.transcripts.clear(k);
        deps.state.removeCursorsHeldBy(k);
      });
      deps.queues.clear(k);
      deps.onReset(k);
      emit({ type: 'session:changed', sessionKey: k });
    },
    delete(key, agentId) {
      const k = resolveKey(key, agentId ?? store.get(key)?.agentId ?? 'main');
      tx.run(() => {
        for (const owner of deps.owners) owner.deleteSession(k.key);
        deps.transcripts.clear(k.key);
        deps.state.removeCursorsHeldBy(k.key);
        deps.state.removeCursorsOn(k.key);
        store.detachChildren(k.key);
        store.remove(k.key, k.agentId);
      });
      deps.queues.clear(k.key);
      deps.waker.forget(k.key);
      deps.onDelete(k.key);
      emit({ type: 'session:deleted', sessionKey: k.key });
    },
  };
}
