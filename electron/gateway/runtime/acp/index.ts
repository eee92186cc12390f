// The ACP child-process layer used by sessions_spawn with runtime "acp".
export { AcpChild, AcpStartError } from './child';
export { AcpCommandNotFoundError, resolveCommand, type AcpProfile } from './profiles';
export { closeAllAcpChildren, liveAcpChildCount } from './registry';
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
