// The channel → {args, result} map, the result envelope and the `window.sightline` API type.
import type { AccountResultMap } from './accounts';
import type { Channel } from './channels';
import type { ArgsInput, ArgsParsed } from './schemas';
import type {
  AcpAuthView,
  AcpInstallInfo,
  AcpProfileView,
  AgentView,
  AppInfo,
  CatalogEntry,
  ConsentRequestView,
  DatabaseStatus,
  CatalogRootView,
  DemoFleet,
  FleetSnapshot,
  FleetWire,
  FolderCheck,
  Goal,
  InboxItem,
  McpIssuedView,
  McpView,
  NodeInfo,
  PermissionRequestView,
  PushBatch,
  NoticeHistory,
  RegistryInstallPlan,
  RegistryListingView,
  RunInfo,
  SessionImpact,
  Preferences,
  SearchResult,
  SessionView,
  TimelinePage,
  TranscriptPage,
  WatchersView,
} from './types';
import type { LoginTerminalResults } from './login-terminals';
import type { WorktreeResults } from './worktrees';

export interface ResultMap extends WorktreeResults, AccountResultMap, LoginTerminalResults {
  'fleet:snapshot': FleetSnapshot;
  /** The renderer's loads: fleet:snapshot with each view's defaulted fields left out (fleet-wire.ts). */
  'fleet:compact': FleetWire;
  'sessions:get': SessionView;
  'sessions:seen': { seen: true };
  'transcript:page': TranscriptPage;
  'human:send': { accepted: true };
  'runs:cancel': { cancelled: boolean };
  'runs:retry': { retried: boolean };
  'goals:set': Goal;
  'goals:clear': { cleared: true };
  'timeline:page': TimelinePage;
  'watchers:get': WatchersView;
  'inbox:list': InboxItem[];
  'inbox:dismiss': { dismissed: true };
  'inbox:history': NoticeHistory;
  'catalog:list': CatalogEntry[];
  'catalog:adopt': SessionView;
  'catalog:roots': CatalogRootView[];
  'nodes:list': NodeInfo[];
  'nodes:add': NodeInfo;
  'nodes:rename': NodeInfo;
  'nodes:remove': { removed: true };
  'demo:start': DemoFleet;
  'demo:reset': DemoFleet;
  'search:query': SearchResult;
  'prefs:get': Preferences;
  'prefs:set': Preferences;
  'agents:list': AgentView[];
  'agents:save': AgentView;
  'app:info': AppInfo;
  'ui:viewing': { viewing: true };
  'acp:profiles:list': AcpProfileView[];
  'acp:profiles:save': AcpProfileView;
  'acp:profiles:remove': { removed: boolean };
  'acp:permissions:list': PermissionRequestView[];
  'acp:permissions:respond': { resolved: true };
  'sessions:start': SessionView;
  'sessions:impact': SessionImpact;
  /** The files the session's agent changed, as its diffs name them. */
  'sessions:changes': { files: string[] };
  'sessions:reset': SessionView;
  'sessions:delete': { deleted: true };
  'sessions:archive': SessionView;
  'runs:list': RunInfo[];
  'folders:check': FolderCheck;
  /** Electron only (a native dialog); `path` absent when the person cancelled. */
  'folders:pick': { path?: string };
  'acp:registry:list': RegistryListingView;
  'acp:registry:plan': RegistryInstallPlan;
  'acp:registry:install': AcpProfileView;
  'acp:installs:list': AcpInstallInfo[];
  'acp:auth:get': AcpAuthView;
  'acp:auth:authenticate': { authenticated: true };
  'acp:auth:key': { saved: true };
  'mcp:list': McpView;
  'mcp:issue': McpIssuedView;
  'mcp:revoke': { revoked: boolean };
  'consent:list': ConsentRequestView[];
  'consent:respond': { resolved: true };
  'database:status': DatabaseStatus;
  'database:restore': { restoring: true };
}

export type IpcContract = {
  [C in Channel]: { args: ArgsInput<C>; parsed: ArgsParsed<C>; result: ResultMap[C] };
};
export type ArgsOf<C extends Channel> = IpcContract[C]['args'];
export type ResultOf<C extends Channel> = IpcContract[C]['result'];

export const ERROR_CODES = [
  'invalid_argument',
  'not_found',
  'forbidden',
  'unavailable',
  'unknown_channel',
  'internal',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export interface IpcError {
  code: ErrorCode;
  message: string;
}

export type Envelope<T> = { ok: true; value: T } | { ok: false; error: IpcError };

export type PushListener = (batch: PushBatch) => void;

/** `window.sightline`: exposed by the Electron preload, emulated over WebSocket in browser mode. */
export interface SightlineApi {
  invoke<C extends Channel>(channel: C, args: ArgsOf<C>): Promise<Envelope<ResultOf<C>>>;
  subscribe(listener: PushListener): () => void;
}

// Browser mode's wire format (JSON text frames over the WebSocket).
export interface WireRequest {
  id: number;
  channel: string;
  args?: unknown;
}
export type WireMessage =
  | { type: 'result'; id: number; result: Envelope<unknown> }
  | { type: 'push'; batch: PushBatch }
  | { type: 'hello'; app: AppInfo };
