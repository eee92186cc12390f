// What the gateway pushes to the renderer.
// Declarations only; shared/ipc/types.ts re-exports every domain file.
import type { NoticeEntry, StateEvent } from '../domain';
import type { ConsentRequestView, PermissionRequestView } from './questions';
import type { LiveStream, RunInfo, SessionStatusView, TranscriptMessage } from './sessions';
import type { NoticeDelivery } from './watchers';
import type { AcpStartProgress } from './agents';
import type { WorktreesChangedEvent } from './worktrees';
import type { LoginTerminalEvent } from './login-terminals';

export type GatewayEvent =
  | { type: 'state:event'; sessionKey: string; agentId: string; event: StateEvent }
  | { type: 'notice:queued'; sessionKey: string; entry: NoticeEntry }
  | { type: 'notice:drained'; sessionKey: string; entries: NoticeEntry[] }
  | { type: 'cursor:changed'; watcher: string; target: string }
  | { type: 'session:changed'; sessionKey: string }
  | { type: 'session:deleted'; sessionKey: string }
  | { type: 'run:changed'; run: RunInfo }
  | { type: 'transcript:appended'; message: TranscriptMessage }
  | { type: 'wake'; sessionKey: string; reason: 'notice' | 'heartbeat' }
  | { type: 'catalog:changed' }
  | { type: 'nodes:changed' }
  | { type: 'acp:permission'; request: PermissionRequestView }
  | { type: 'acp:permission-resolved'; requestId: string; sessionKey: string; decision: string }
  | { type: 'consent:request'; request: ConsentRequestView }
  | { type: 'consent:resolved'; requestId: string; allowed: boolean }
  | { type: 'run:delta'; sessionKey: string; runId: string; stream: LiveStream; text: string }
  | { type: 'session:status'; sessionKey: string; status: SessionStatusView }
  | { type: 'notice:delivered'; delivery: NoticeDelivery }
  | { type: 'notice:reconciled'; delivery: NoticeDelivery }
  /** Sent by the Electron shell (not the gateway): the person clicked a notification about it. */
  | { type: 'ui:open'; sessionKey: string }
  | { type: 'acp:progress'; progress: AcpStartProgress }
  | WorktreesChangedEvent
  | LoginTerminalEvent;

/** One push: the gateway events of (at most) one 16 ms window, in order. */
export interface PushBatch {
  events: GatewayEvent[];
}
