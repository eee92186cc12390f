// Anthropic Messages API provider (streaming, tool use). The runtime's flat message list is
// reshaped into what the API demands: tool results travel as `tool_result` blocks inside a user
// message, roles strictly alternate (consecutive same-role messages are merged), and no text
// block may be empty.
import Anthropic, { APIConnectionError, APIConnectionTimeoutError, APIError } from '@anthropic-ai/sdk';
import type {
  ContentBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  RawMessageStreamEvent,
  Tool,
} from '@anthropic-ai/sdk/resources/messages';
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

export interface AnthropicSettings {
  /** Host root, e.g. `https://api.anthropic.com`; a trailing `/v1` is tolerated. */
  baseUrl?: string;
  apiKey?: string;
  model: string;
  /** Wait for response headers, and the longest silence tolerated inside a stream. */
  timeoutMs?: number;
  /** The API requires max_tokens on every request; used when the request does not set one. */
  maxTokens?: number;
}

const LABEL = 'anthropic';
const ANTHROPIC_BASE_URL = DEFAULT_BASE_URL.anthropic!;
const DEFAULT_MAX_TOKENS = 4096;
/** Always passed explicitly: with no key the SDK would go looking in env vars and config files. */
const PLACEHOLDER_KEY = 'sk-no-key';

export function createAnthropicProvider(settings: AnthropicSettings): ModelProvider {
  const timeoutMs = settings.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const client = new Anthropic({
    // The SDK appends `/v1/messages` itself; people often paste the URL with `/v1`.
    baseURL: checkBaseUrl(LABEL, settings.baseUrl?.trim() || ANTHROPIC_BASE_URL)
      .replace(/\/+$/, '')
      .replace(/\/v1$/, ''),
    apiKey: settings.apiKey?.trim() || PLACEHOLDER_KEY,
    maxRetries: 0,
    timeout: timeoutMs,
    logLevel: 'off',
  });

  return {
    id: 'anthropic',
    complete(req: ModelRequest): Promise<ModelResponse> {
      const body: MessageCreateParamsStreaming = {
        model: settings.model,
        max_tokens: req.maxTokens ?? settings.maxTokens ?? DEFAULT_MAX_TOKENS,
        messages: toAnthropicMessages(req.messages),
        stream: true,
      };
      if (req.system) body.system = req.system;
      if (req.tools.length > 0) body.tools = req.tools.map(toAnthropicTool);

      return runGuarded(
        LABEL,
        req.signal,
        timeoutMs,
        async (guard) => {
          const stream = await client.messages.create(body, { signal: guard.signal });
          const acc = new EventAccumulator({
            thinking: (t) => !req.signal.aborted && req.onThinking?.(t),
            tool: (name) => !req.signal.aborted && req.onToolCall?.(name),
          });
          for await (const event of stream) {
            guard.touch();
            const text = acc.add(event);
            if (text && !req.signal.aborted) req.onDelta?.(text);
          }
          return acc.finish();
        },
        classifyAnthropicError,
      );
    },
  };
}

export function toAnthropicMessages(messages: ModelMessage[]): MessageParam[] {
  const out: { role: 'user' | 'assistant'; content: ContentBlockParam[] }[] = [];
  for (const m of messages) {
    const role = m.role === 'assistant' ? 'assistant' : 'user';
    const blocks: ContentBlockParam[] = [];
    if (m.role === 'tool') {
      blocks.push({ type: 'tool_result', tool_use_id: m.toolCallId ?? '', content: m.content });
    } else {
      if (m.content) blocks.push({ type: 'text', text: m.content });
      for (const call of m.toolCalls ?? []) {
        blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: call.arguments });
      }
    }
    if (blocks.length === 0) continue;
    const last = out[out.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  }
  // Within a user message the API wants every tool_result before any text.
  for (const m of out) {
    if (m.role === 'user') m.content.sort((a, b) => rank(a) - rank(b));
  }
  return out;
}

function rank(block: ContentBlockParam): number {
  return block.type === 'tool_result' ? 0 : 1;
}

function toAnthropicTool(t: ModelToolSpec): Tool {
  return { name: t.name, description: t.description, input_schema: { ...t.parameters, type: 'object' } };
}

type Block =
  | { kind: 'text' }
  | { kind: 'tool'; id: string; name: string; json: string; input: unknown }
  | { kind: 'other' };

/** Folds the Messages stream events into one response; tool input JSON is assembled per block. */
class EventAccumulator {
  constructor(private readonly on: { thinking(text: string): void; tool(name: string): void }) {}

  private text = '';
  private readonly blocks = new Map<number, Block>();
  private stop: string | null = null;
  private stopped = false;
  private inputTokens = 0;
  private outputTokens = 0;

  /** Returns the assistant text this event adds. */
  add(event: RawMessageStreamEvent): string {
    switch (event.type) {
      case 'message_start': {
        const u = event.message.usage;
        // Cached prompt tokens are reported apart from input_tokens; the run pays for all of them.
        this.inputTokens =
          u.input_tokens + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0);
        this.outputTokens = u.output_tokens;
        return '';
      }
      case 'content_block_start': {
        const b = event.content_block;
        this.blocks.set(
          event.index,
          b.type === 'text'
            ? { kind: 'text' }
            : b.type === 'tool_use'
              ? { kind: 'tool', id: b.id, name: b.name, json: '', input: b.input }
              : { kind: 'other' },
        );
        if (b.type === 'text' && b.text) return this.append(b.text);
        if (b.type === 'tool_use') this.on.tool(b.name);
        if (b.type === 'thinking' && b.thinking) this.on.thinking(b.thinking);
        return '';
      }
      case 'content_block_delta': {
        const block = this.blocks.get(event.index);
        if (event.delta.type === 'text_delta') return this.append(event.delta.text);
        if (event.delta.type === 'thinking_delta') this.on.thinking(event.delta.thinking);
        if (event.delta.type === 'input_json_delta' && block?.kind === 'tool')
          block.json += event.delta.partial_json;
        return '';
      }
      case 'message_delta': {
        if (event.delta.stop_reason) this.stop = event.delta.stop_reason;
        // output_tokens here is cumulative; some compatible gateways only report input here.
        this.outputTokens = event.usage.output_tokens;
        if (event.usage.input_tokens != null) {
          this.inputTokens =
            event.usage.input_tokens +
            (event.usage.cache_creation_input_tokens ?? 0) +
            (event.usage.cache_read_input_tokens ?? 0);
        }
        return '';
      }
      case 'message_stop':
        this.stopped = true;
        return '';
      default:
        return '';
    }
  }

  finish(): ModelResponse {
    if (!this.stopped) throw new ModelProviderError(`${LABEL}: stream ended before the response finished`);
    const toolCalls: ModelToolCall[] = [];
    for (const [, b] of [...this.blocks.entries()].sort(([x], [y]) => x - y)) {
      if (b.kind !== 'tool') continue;
      // A server may send the whole input in content_block_start and no deltas.
      const args = b.json ? parseToolArguments(LABEL, b.name, b.json) : inputObject(b.input);
      toolCalls.push({ id: b.id, name: b.name, arguments: args });
    }
    return {
      text: this.text,
      toolCalls,
      usage: { inputTokens: this.inputTokens, outputTokens: this.outputTokens },
      stopReason: mapStopReason(this.stop),
    };
  }

  private append(text: string): string {
    this.text += text;
    return text;
  }
}

function inputObject(input: unknown): Record<string, unknown> {
  return input && typeof input === 'object' && !Array.isArray(input)
    ? (input as Record<string, unknown>)
    : {};
}

function mapStopReason(reason: string | null): ModelResponse['stopReason'] {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'end';
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
      return 'max_tokens';
    case 'refusal':
      return 'refusal';
    default:
      return 'other';
  }
}

const classifyAnthropicError = (err: unknown) =>
  classifySdkError(LABEL, err, {
    Timeout: APIConnectionTimeoutError,
    Connection: APIConnectionError,
    apiError: (e) =>
      e instanceof APIError
        ? {
            ...(e.status ? { status: e.status } : {}),
            detail: e.apiMessage ?? withoutStatus(e.message, e.status),
            ...(e.type ? { type: e.type } : {}),
          }
        : undefined,
  });
