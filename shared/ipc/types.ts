// The views the renderer sees, defined once for both sides: the gateway's types
// (electron/gateway/types.ts) re-export them, since shared/ never depends on electron/.
// One file per domain beside this one (sessions, watchers, catalog, …); this module re-exports
// them all, so `shared/ipc/types` stays the one import for anything that crosses the IPC boundary.
// A new domain's types go in a new file here, added to the list below.
import type { ActorType, EventKind, NoticeEntry, SessionInfo, StateEvent, StateEventRow } from '../domain';
import type { SessionKind } from '../session-keys';

export type { ActorType, EventKind, NoticeEntry, SessionInfo, StateEvent, StateEventRow, SessionKind };

export * from './sessions';
export * from './fleet-wire';
export * from './watchers';
export * from './catalog';
export * from './nodes';
export * from './inbox';
export * from './search';
export * from './preferences';
export * from './app';
export * from './events';
export * from './questions';
export * from './acp';
export * from './mcp';
export * from './agents';
export * from './worktrees';
export * from './login-terminals';
