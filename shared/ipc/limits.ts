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
  transcriptPage: { default: 100, max: 500 },
  timelinePage: { default: 200, max: 1_000 },
} as const;
