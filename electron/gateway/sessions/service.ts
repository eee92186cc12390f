// `gateway.sessions` (contract): every session is created here, and reset and deleted here, each
// in one transaction; `session:changed` / `session:deleted` go out after the commit, after what
// the runtime keeps in memory (turns, ACP agents, queued notices) is forgotten.
//
// Deleting a session deletes its history: its signal log rows, head and every cursor where it is
// watcher or target (state core), and the registry row, whose transcript, goal, runs and
// upstream link go with it (foreign keys, ON DELETE CASCADE). Afterwards version(key) is 0; a
// session created later under the key starts clean, with higher sequences than the old one had.
import { noticeContextKey, normalizeSessionKey, parseSessionKey } from '../../../shared/session-keys';
import type { Transactions } from '../db/transactions';
import { notFound } from '../errors';
import type { NoticeQueues } from '../state/notice-queue';
import { resolveKey } from '../state/record-input';
import type { StateCore } from '../state/session-state';
import type { HeartbeatWaker } from '../state/waker';
import type { GatewayEvent, GatewaySessions, Sessions } from '../types';
import type { SessionStore } from './store';
import type { TranscriptStore } from './transcripts';

export interface SessionsDeps {
  tx: Transactions;
  emit: (e: GatewayEvent) => void;
  store: SessionStore;
  transcripts: TranscriptStore;
  state: Pick<StateCore, 'removeCursorsHeldBy' | 'removeSession' | 'watchers'>;
  /** How many runs a session has (for `impact`). */
  countRuns(sessionKey: string): number;
  queues: NoticeQueues;
  waker: HeartbeatWaker;
  /** Part of creating a session: this gateway runs it (ownership.claimCreated). */
  claim(sessionKey: string): void;
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
      const info = tx.run(() => {
        const created = store.create(input);
        deps.claim(created.key);
        return created;
      });
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
    listAdopted: () => store.listAdopted(),
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
        deps.state.removeSession(k.key, k.agentId);
        store.detachChildren(k.key);
        store.remove(k.key, k.agentId);
      });
      deps.queues.clear(k.key);
      deps.queues.dropContext(noticeContextKey(k.key));
      deps.waker.forget(k.key);
      deps.onDelete(k.key);
      emit({ type: 'session:deleted', sessionKey: k.key });
    },
  };
}
