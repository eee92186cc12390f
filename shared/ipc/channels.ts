// Channel names of the one IPC contract, `<domain>:<verb>` (`<domain>:<noun>:<verb>` for acp). Electron's ipcMain handlers, the
// preload bridge, browser mode's WebSocket server and the renderer client all use these.
import { LOGIN_TERMINAL_CHANNELS } from './login-terminals';
import { WORKTREE_CHANNELS } from './worktrees';

export const CHANNELS = {
  fleetSnapshot: 'fleet:snapshot',
  fleetCompact: 'fleet:compact',
  sessionsGet: 'sessions:get',
  sessionsSeen: 'sessions:seen',
  transcriptPage: 'transcript:page',
  humanSend: 'human:send',
  runsCancel: 'runs:cancel',
  runsRetry: 'runs:retry',
  goalsSet: 'goals:set',
  goalsClear: 'goals:clear',
  timelinePage: 'timeline:page',
  watchersGet: 'watchers:get',
  inboxList: 'inbox:list',
  inboxDismiss: 'inbox:dismiss',
  inboxHistory: 'inbox:history',
  catalogList: 'catalog:list',
  catalogAdopt: 'catalog:adopt',
  catalogRoots: 'catalog:roots',
  nodesList: 'nodes:list',
  nodesAdd: 'nodes:add',
  nodesRename: 'nodes:rename',
  nodesRemove: 'nodes:remove',
  demoStart: 'demo:start',
  demoReset: 'demo:reset',
  searchQuery: 'search:query',
  prefsGet: 'prefs:get',
  prefsSet: 'prefs:set',
  agentsList: 'agents:list',
  agentsSave: 'agents:save',
  appInfo: 'app:info',
  uiViewing: 'ui:viewing',
  acpProfilesList: 'acp:profiles:list',
  acpProfilesSave: 'acp:profiles:save',
  acpProfilesRemove: 'acp:profiles:remove',
  acpPermissionsList: 'acp:permissions:list',
  acpPermissionsRespond: 'acp:permissions:respond',
  // Starting sessions and their lifecycle (issue 15).
  sessionsStart: 'sessions:start',
  sessionsImpact: 'sessions:impact',
  sessionsChanges: 'sessions:changes',
  sessionsReset: 'sessions:reset',
  sessionsDelete: 'sessions:delete',
  sessionsArchive: 'sessions:archive',
  runsList: 'runs:list',
  foldersCheck: 'folders:check',
  foldersPick: 'folders:pick',
  // ACP agents from the registry (issue 15).
  acpRegistryList: 'acp:registry:list',
  acpRegistryPlan: 'acp:registry:plan',
  acpRegistryInstall: 'acp:registry:install',
  acpInstallsList: 'acp:installs:list',
  // An agent that answered authRequired (issue 28.5).
  acpAuthGet: 'acp:auth:get',
  acpAuthAuthenticate: 'acp:auth:authenticate',
  acpAuthKey: 'acp:auth:key',
  mcpList: 'mcp:list',
  mcpIssue: 'mcp:issue',
  mcpRevoke: 'mcp:revoke',
  consentList: 'consent:list',
  consentRespond: 'consent:respond',
  databaseStatus: 'database:status',
  databaseRestore: 'database:restore',
  ...WORKTREE_CHANNELS,
  ...LOGIN_TERMINAL_CHANNELS,
  // A gateway a team shares (npm run serve; shared/ipc/accounts.ts). A local gateway answers
  // `unavailable`.
  accountsMe: 'accounts:me',
  accountsList: 'accounts:list',
  accountsInvite: 'accounts:invite',
  accountsRevoke: 'accounts:revoke',
  auditList: 'audit:list',
} as const;

export type Channel = (typeof CHANNELS)[keyof typeof CHANNELS];

export const CHANNEL_LIST: readonly Channel[] = Object.values(CHANNELS);

export function isChannel(value: unknown): value is Channel {
  return typeof value === 'string' && (CHANNEL_LIST as readonly string[]).includes(value);
}

/** The one push channel: batches of gateway events (Electron: webContents.send; web: a frame). */
export const PUSH_CHANNEL = 'push:events';
