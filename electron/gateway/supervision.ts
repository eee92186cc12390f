// What the person sees of the fleet (issue 17): live output of running steps, one derived status
// per session, and the history of notices watchers read and reconciled. Built by createGateway;
// kept in step with the gateway's own events, so no service needs to know about them.
import type { EventHub } from './events';
import type { SeenStore } from './person';
import { createLiveOutputs, type LiveOutputs } from './runtime/live-output';
import { createStatusTracker, type StatusDeps } from './runtime/status';
import { createNoticeHistory } from './state/notice-history';
import type { NoticeRepository } from './state/notice-repository';

export type Supervision = ReturnType<typeof createSupervision>;

export function createSupervision(deps: {
  notices: NoticeRepository;
  seen: SeenStore;
  now: () => number;
  events: EventHub;
  lastMessageId(sessionKey: string): number;
}) {
  const emit = deps.events.emit;
  const live: LiveOutputs = createLiveOutputs(emit);
  const history = createNoticeHistory({
    rows: deps.notices,
    now: deps.now,
    emit,
    lastMessageId: deps.lastMessageId,
  });
  let status: ReturnType<typeof createStatusTracker> | undefined;

  const off = deps.events.on((e) => {
    switch (e.type) {
      case 'transcript:appended':
        live.landed(e.message);
        break;
      case 'run:changed':
        if (e.run.status !== 'running' && e.run.status !== 'queued') live.ended(e.run.sessionKey);
        break;
      case 'notice:drained':
        history.drained(e.sessionKey, e.entries);
        break;
      case 'session:deleted':
        live.forget(e.sessionKey);
        history.forgetWatcher(e.sessionKey);
        break;
      default:
        break;
    }
    status?.onEvent(e);
  });

  return {
    live,
    history,
    /** The status tracker needs the turn engine, the runs and the permission list: started last. */
    startStatus(d: Omit<StatusDeps, 'seen' | 'now' | 'emit'>) {
      status = createStatusTracker({ seen: deps.seen, now: deps.now, emit, ...d });
      return status;
    },
    close: off,
  };
}
