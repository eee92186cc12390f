// OpenAI chat-completions provider. It speaks to any OpenAI-compatible endpoint (OpenAI, Ollama,
// LM Studio, vLLM, OpenRouter), so it is deliberately lenient about what those servers leave out
// (tool-call ids, an `index` on tool-call deltas, `choices` on the usage chunk) and strict about
// what makes a reply unusable (bad JSON, a stream cut before its finish_reason).
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import {
  checkBaseUrl,
  classifySdkError,
  DEFAULT_TIMEOUT_MS,
  parseToolArguments,
  runGuarded,
  withoutStatus,
} from './guard';
import { DEFAULT_BASE_URL } from '../../../trust/base-url';
import { ModelProviderError } from './types';
import type {
  ModelMessage,
  ModelProvider,
  ModelRequest,
  ModelResponse,
  ModelToolCall,
  ModelToolSpec,
} from './types';

export interface OpenAISettings {
  /** Includes the version path, e.g. `http://127.0.0.1:11434/v1`. Default: OpenAI's own API. */
  baseUrl?: string;
  /** May be empty for local servers. */
  apiKey?: string;
  model: string;
  /** Wait for response headers, and the longest silence tolerated inside a stream. */
  timeoutMs?: number;
}

const LABEL = 'openai';
const OPENAI_BASE_URL = DEFAULT_BASE_URL.openai!;
/** The SDK refuses to build a client without a key; local servers ignore whatever is sent. */
const PLACEHOLDER_KEY = 'sk-no-key';

export function createOpenAIProvider(settings: OpenAISettings): ModelProvider {
  const baseURL = checkBaseUrl(LABEL, settings.baseUrl?.trim() || OPENAI_BASE_URL);
  const timeoutMs = settings.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const client = new OpenAI({
    baseURL,
    apiKey: settings.apiKey?.trim() || PLACEHOLDER_KEY,
    // Settings are the only source: OPENAI_ORG_ID / OPENAI_PROJECT_ID must not leak to other hosts.
    organization: null,
    project: null,
    // The runtime owns retry policy; a provider that retries on its own hides failures for seconds.
    maxRetries: 0,
    timeout: timeoutMs,
    // Failures are reported through ModelProviderError; the SDK's own console logging is noise.
    logLevel: 'off',
  });
  // OpenAI's newer models reject `max_tokens`; most compatible servers only know `max_tokens`.
  const tokenLimitKey =
    new URL(baseURL).hostname === 'api.openai.com' ? 'max_completion_tokens' : 'max_tokens';

  return {
    id: 'openai',
    complete(req: ModelRequest): Promise<ModelResponse> {
      const body: ChatCompletionCreateParamsStreaming = {
        model: settings.model,
        messages: toOpenAIMessages(req.system, req.messages),
        stream: true,
        stream_options: { include_usage: true },
      };
      // Some compatible servers reject an empty `tools` array, so it is only sent when non-empty.
      if (req.tools.length > 0) body.tools = req.tools.map(toOpenAITool);
      if (req.maxTokens !== undefined) body[tokenLimitKey] = req.maxTokens;

      return runGuarded(
        LABEL,
        req.signal,
        timeoutMs,
        async (guard) => {
          const stream = await client.chat.completions.create(body, { signal: guard.signal });
          const acc = new ChunkAccumulator({
            thinking: (t) => !req.signal.aborted && req.onThinking?.(t),
            tool: (name) => !req.signal.aborted && req.onToolCall?.(name),
          });
          for await (const chunk of stream) {
            guard.touch();
            const text = acc.add(chunk);
            if (text && !req.signal.aborted) req.onDelta?.(text);
          }
          return acc.finish();
        },
        classifyOpenAIError,
      );
    },
  };
}

export function toOpenAIMessages(system: string, messages: ModelMessage[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  if (system) out.push({ role: 'system', content: system });
  for (const m of messages) {
    switch (m.role) {
      case 'user':
        out.push({ role: 'user', content: m.content });
        break;
      case 'assistant':
        if (m.toolCalls?.length) {
          out.push({
            role: 'assistant',
            // The API wants null, not "", for an assistant turn that only called tools.
            content: m.content || null,
            tool_calls: m.toolCalls.map((c) => ({
              id: c.id,
              type: 'function' as const,
              function: { name: c.name, arguments: JSON.stringify(c.arguments) },
            })),
          });
        } else {
          out.push({ role: 'assistant', content: m.content });
        }
        break;
      case 'tool':
        out.push({ role: 'tool', tool_call_id: m.toolCallId ?? '', content: m.content });
        break;
      default:
        assertNever(m.role);
    }
  }
  return out;
}

function toOpenAITool(t: ModelToolSpec): ChatCompletionTool {
  return {
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.parameters },
  };
}

interface PendingCall {
  id: string;
  name: string;
  args: string;
}

/** Folds `chat.completion.chunk`s into one response; tool calls are assembled by their index. */
class ChunkAccumulator {
  constructor(private readonly on: { thinking(text: string): void; tool(name: string): void }) {}

  private text = '';
  private readonly calls = new Map<number, PendingCall>();
  private finishReason: string | null = null;
  private refused = false;
  private usage = { inputTokens: 0, outputTokens: 0 };

  /** Returns the assistant text this chunk adds. */
  add(chunk: ChatCompletionChunk): string {
    if (chunk.usage) {
      this.usage = { inputTokens: chunk.usage.prompt_tokens, outputTokens: chunk.usage.completion_tokens };
    }
    // Only the first choice is ever requested; the usage chunk has none (some servers send null).
    const choice = (chunk.choices ?? []).find((c) => c.index === 0) ?? chunk.choices?.[0];
    if (!choice) return '';
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    const delta = choice.delta ?? {};
    (delta.tool_calls ?? []).forEach((tc, position) => {
      const index = tc.index ?? position;
      const slot = this.calls.get(index) ?? { id: '', name: '', args: '' };
      if (tc.id) slot.id = tc.id;
      // Some servers repeat the name on every fragment; it is never split, so keep the first.
      if (tc.function?.name && !slot.name) {
        slot.name = tc.function.name;
        this.on.tool(slot.name);
      }
      if (tc.function?.arguments) slot.args += tc.function.arguments;
      this.calls.set(index, slot);
    });
    // Reasoning summaries of compatible servers: `reasoning_content` (DeepSeek, vLLM) or
    // `reasoning` (OpenRouter, Ollama). Not part of the answer; shown while the model works.
    const reasoning =
      (delta as { reasoning_content?: unknown; reasoning?: unknown }).reasoning_content ??
      (delta as { reasoning?: unknown }).reasoning;
    if (typeof reasoning === 'string' && reasoning) this.on.thinking(reasoning);
    let added = delta.content ?? '';
    if (delta.refusal) {
      this.refused = true;
      added += delta.refusal;
    }
    this.text += added;
    return added;
  }

  finish(): ModelResponse {
    if (this.finishReason === null) {
      throw new ModelProviderError(`${LABEL}: stream ended before the response finished`);
    }
    const toolCalls: ModelToolCall[] = [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, c]) => ({
        id: c.id || `call_${index}`,
        name: c.name,
        arguments: parseToolArguments(LABEL, c.name, c.args),
      }));
    return {
      text: this.text,
      toolCalls,
      usage: this.usage,
      stopReason: this.stopReason(toolCalls.length > 0),
    };
  }

  private stopReason(calledTools: boolean): ModelResponse['stopReason'] {
    if (this.refused) return 'refusal';
    switch (this.finishReason) {
      case 'tool_calls':
      case 'function_call':
        return 'tool_calls';
      case 'stop':
        // Several local servers report "stop" even when the turn ended in tool calls.
        return calledTools ? 'tool_calls' : 'end';
      case 'length':
        return 'max_tokens';
      case 'content_filter':
        return 'refusal';
      default:
        return 'other';
    }
  }
}

const classifyOpenAIError = (err: unknown) =>
  classifySdkError(LABEL, err, {
    Timeout: APIConnectionTimeoutError,
    Connection: APIConnectionError,
    apiError: (e) =>
      e instanceof APIError
        ? { ...(e.status ? { status: e.status } : {}), detail: apiErrorText(e) }
        : undefined,
  });

function apiErrorText(err: APIError): string {
  const body: unknown = err.error;
  // Ollama and a few proxies send `{"error": "text"}` rather than an error object.
  if (typeof body === 'string') return body;
  if (body && typeof body === 'object' && 'message' in body && typeof body.message === 'string')
    return body.message;
  // Without a JSON body the SDK's own message is all there is.
  return withoutStatus(err.message, err.status);
}

function assertNever(value: never): never {
  throw new Error(`unexpected message role: ${String(value)}`);
}
