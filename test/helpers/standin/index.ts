// Stand-in model servers for real agents in tests (README.md here documents the API).
export {
  gate,
  type Gate,
  type StandIn,
  type StandInOptions,
  type StandInRequest,
  type Step,
  type Turn,
} from './core';
export { startAnthropicStandIn } from './anthropic';
export { startResponsesStandIn } from './openai-responses';
export { startChatStandIn } from './openai-chat';
export { startGeminiStandIn } from './gemini';
