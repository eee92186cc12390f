// The ACP child-process layer used by sessions_spawn with runtime "acp".
export { AcpChild, AcpStartError } from './child';
export { AcpCommandNotFoundError, resolveCommand } from './command';
export type { AcpProfile } from '../../../../shared/ipc/types';
export { closeAllAcpChildren, liveAcpChildCount } from './live-children';
export type {
  AcpChildOptions,
  AcpLogger,
  AcpPermissionDecision,
  AcpPermissionOption,
  AcpPermissionOptionKind,
  AcpPermissionRequest,
  AcpPlanEntry,
  AcpRunOutcome,
  AcpRunResult,
  AcpToolStatus,
  AcpUpdate,
} from './types';
