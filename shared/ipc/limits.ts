// Bounds of the IPC arguments (strings, pages); zod-free so the renderer can use them cheaply.
export const LIMITS = {
  sessionKey: 512,
  messageText: 100_000,
  objective: 2_000,
  inboxId: 2_048,
  threadId: 512,
  agentId: 64,
  agentName: 200,
  model: 200,
  baseUrl: 2_048,
  apiKey: 4_096,
  systemPrompt: 50_000,
  heartbeatSeconds: 86_400,
  profileId: 64,
  profileName: 200,
  command: 4_096,
  profileArgs: 200,
  profileArg: 4_096,
  profileEnv: 200,
  envName: 256,
  envValue: 32_768,
  cwd: 4_096,
  permissionId: 512,
  searchQuery: 200,
  longRunSeconds: { min: 10, max: 86_400 },
  searchMessages: { default: 200, max: 500 },
  transcriptPage: { default: 100, max: 500 },
  timelinePage: { default: 200, max: 1_000 },
  historyPage: { default: 100, max: 500 },
} as const;

/** The gateway's fixed retention (electron/gateway/state/prune.ts; a unit test keeps them equal). */
export const RETENTION = {
  signalLogDays: 30,
  signalLogRows: 50_000,
  cursorIdleDays: 30,
  pruneEveryMinutes: 60,
} as const;
