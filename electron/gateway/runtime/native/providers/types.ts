// The one interface through which the agent runtime calls a model. Every provider (scripted,
// OpenAI-compatible, Anthropic) maps its own wire format onto these shapes, so turns, tools and
// usage accounting never see a vendor type.

export interface ModelToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export interface ModelMessage {
  role: 'user' | 'assistant' | 'tool';
  content: string;
  toolCalls?: ModelToolCall[]; // assistant messages that called tools
  toolCallId?: string; // tool results
  toolName?: string;
}

export interface ModelToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown> /* JSON Schema object */;
}

export interface ModelRequest {
  system: string; // system prompt + drained system events, already joined
  messages: ModelMessage[];
  tools: ModelToolSpec[];
  signal: AbortSignal; // cancellation: abort → reject with ModelAbortedError promptly
  onDelta?: (text: string) => void; // streamed assistant text
  onThinking?: (text: string) => void; // streamed thinking / reasoning summary, when the model gives one
  onToolCall?: (name: string) => void; // a tool call started streaming (its arguments follow)
  maxTokens?: number;
}

export interface ModelResponse {
  text: string;
  toolCalls: ModelToolCall[];
  usage: { inputTokens: number; outputTokens: number };
  stopReason: 'end' | 'tool_calls' | 'max_tokens' | 'refusal' | 'other';
}

export interface ModelProvider {
  readonly id: 'scripted' | 'openai' | 'anthropic';
  complete(req: ModelRequest): Promise<ModelResponse>;
}

/** A model call failed: HTTP error, network error, malformed stream. The message is meant for people. */
export class ModelProviderError extends Error {
  /** HTTP status of the failed response, when there was one. */
  readonly status: number | undefined;

  constructor(message: string, options: { status?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ModelProviderError';
    this.status = options.status;
  }
}

/** The request's AbortSignal fired; the HTTP request (if any) has been cancelled. */
export class ModelAbortedError extends Error {
  constructor(message = 'model request aborted') {
    super(message);
    this.name = 'ModelAbortedError';
  }
}
