// An ACP agent's permission request goes to the person who started the run that asks (issue
// 30.2), not to everyone: the run's starter is whoever last sent to, retried or started that
// session when the run began (a queued message starts its own run, so a request in Alice's run
// stays Alice's even after Bob wrote). A run nobody started (an agent's spawn, a timer, a run
// already going when the gateway started) asks the owners. Only that person may answer; the others
// see the request with who was asked (`askedOf`), without the buttons. A person who disconnects
// keeps their requests (the list gives them back when they reconnect); a revoked person's go to
// the owners. Memory is per live run and per waiting request, and per session until it is deleted.
import type { GatewayEvent } from '../gateway/types';
import type { PermissionRequestView } from '../../shared/ipc/questions';
import type { Account } from './accounts';
import { acting } from './people';

/** The channels by which a person makes a session run, with where their session key is. */
const CAUSES: Record<string, 'args' | 'result'> = {
  'human:send': 'args',
  'runs:retry': 'args',
  'sessions:start': 'result',
};

export interface PermissionPeople {
  /** The live (not revoked) account with this id. */
  live(accountId: string): Account | undefined;
}

export type PermissionRouting = ReturnType<typeof createPermissionRouting>;

export function createPermissionRouting(people: PermissionPeople) {
  /** Session → the person who last made it run. */
  const lastActor = new Map<string, string>();
  /** Session → its live run and who started it (undefined: nobody did). */
  const runs = new Map<string, { runId: string; starter: string | undefined }>();
  /** Waiting request → the person asked (undefined: the owners). */
  const askedOf = new Map<string, string | undefined>();
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

  /** The live person a request waits for; undefined when the owners answer it. */
  const asked = (requestId: string) => {
    const to = askedOf.get(requestId);
    return to === undefined ? undefined : people.live(to);
  };
  const mayAnswer = (a: Account, requestId: string) => {
    const to = asked(requestId);
    return to ? to.id === a.id : a.role === 'owner';
  };
  /** The request as this person sees it: theirs to answer, or whom it waits for. */
  const viewFor = (a: Account, r: PermissionRequestView): PermissionRequestView =>
    mayAnswer(a, r.id) ? r : { ...r, askedOf: asked(r.id)?.name ?? 'The owners' };

  return {
    /** Before a request is dispatched; the returned undo runs when it failed. */
    before(a: Account, channel: unknown, args: unknown): () => void {
      const key =
        CAUSES[String(channel)] === 'args' ? str((args as { sessionKey?: unknown })?.sessionKey) : undefined;
      if (!key) return () => {};
      const was = lastActor.get(key);
      lastActor.set(key, a.id);
      return () => (was === undefined ? lastActor.delete(key) : lastActor.set(key, was));
    },
    /** After it succeeded (a new session's key is in the result). */
    after(a: Account, channel: unknown, value: unknown): void {
      const key = CAUSES[String(channel)] === 'result' ? str((value as { key?: unknown })?.key) : undefined;
      if (key) lastActor.set(key, a.id);
    },
    /** Every gateway event, before any client's filter sees it. */
    observe(e: GatewayEvent): void {
      if (e.type === 'run:changed') {
        const { runId, sessionKey, endedAt } = e.run;
        const live = runs.get(sessionKey);
        if (endedAt !== undefined) return void (live?.runId === runId && runs.delete(sessionKey));
        if (live?.runId === runId) return;
        // A new session's first run begins inside the start, before its key is known here.
        runs.set(sessionKey, { runId, starter: lastActor.get(sessionKey) ?? acting.getStore()?.id });
      } else if (e.type === 'acp:permission') {
        const key = e.request.sessionKey;
        const run = runs.get(key);
        askedOf.set(e.request.id, run ? run.starter : lastActor.get(key));
      } else if (e.type === 'acp:permission-resolved') {
        askedOf.delete(e.requestId);
      } else if (e.type === 'session:deleted') {
        lastActor.delete(e.sessionKey);
        runs.delete(e.sessionKey);
      }
    },
    mayAnswer,
    /** The event as this person sees it. */
    shape(a: Account, e: GatewayEvent): GatewayEvent {
      return e.type === 'acp:permission' ? { ...e, request: viewFor(a, e.request) } : e;
    },
    list: (a: Account, list: PermissionRequestView[]) => list.map((r) => viewFor(a, r)),
    /** The waiting requests asked of this person (to hand to the owners when they are revoked). */
    askedOfPerson: (accountId: string) => [...askedOf].filter(([, to]) => to === accountId).map(([id]) => id),
    /** How much is held, for the tests: sessions known, live runs, waiting requests. */
    held: () => ({ sessions: lastActor.size, runs: runs.size, requests: askedOf.size }),
  };
}
