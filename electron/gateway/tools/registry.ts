// Agent tools: one registry, called by models and by `gateway.tools.call` alike. A tool returns its
// `details`; a ToolError carries the exact message a model (and the contract) sees.
import type { Reach } from '../../../shared/ipc/reach';
import { GatewayError } from '../errors';
import type { ToolResult } from '../types';

export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}

/** Who calls a tool: always an explicit session (a model's turn, `tools.call`, later MCP). */
export interface ToolContext {
  /** The calling session, normalised. */
  caller: string;
  /** The caller's agent id (scopes bare keys). */
  callerAgentId: string;
  signal?: AbortSignal;
  /** What the caller may see and act on (an MCP credential's reach); absent: everything. */
  reach?: Reach;
}

export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema offered to models. Validation happens in `run`, with the spec's exact messages. */
  parameters: Record<string, unknown>;
  run(ctx: ToolContext, args: Record<string, unknown>): Promise<unknown> | unknown;
  /** How the result reads for a model; JSON by default. */
  format?(details: unknown): string;
}

export class ToolRegistry {
  private readonly tools = new Map<string, ToolDefinition>();

  register(tool: ToolDefinition): void {
    this.tools.set(tool.name, tool);
  }

  list(): ToolDefinition[] {
    return [...this.tools.values()];
  }

  async call(ctx: ToolContext, name: string, args: unknown): Promise<ToolResult> {
    const tool = typeof name === 'string' ? this.tools.get(name) : undefined;
    if (!tool) return { ok: false, error: `Unknown tool: ${String(name)}` };
    const input = args === undefined || args === null ? {} : args;
    if (typeof input !== 'object' || Array.isArray(input))
      return { ok: false, error: 'Tool arguments must be an object' };
    try {
      const details = await tool.run(ctx, input as Record<string, unknown>);
      return { ok: true, details, text: tool.format ? tool.format(details) : JSON.stringify(details) };
    } catch (err) {
      // Tool and service refusals carry the exact text a model (and the contract) sees.
      if (err instanceof ToolError || err instanceof GatewayError) return { ok: false, error: err.message };
      return { ok: false, error: `${name} failed: ${err instanceof Error ? err.message : String(err)}` };
    }
  }
}

// Argument readers with clear messages.
export function requireString(args: Record<string, unknown>, name: string, max = 512): string {
  const v = args[name];
  if (typeof v !== 'string' || v.trim().length === 0) throw new ToolError(`${name} is required`);
  if (v.length > max) throw new ToolError(`${name} must be at most ${max} characters`);
  return v;
}

export function optionalString(args: Record<string, unknown>, name: string, max = 512): string | undefined {
  const v = args[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new ToolError(`${name} must be a string`);
  if (v.length > max) throw new ToolError(`${name} must be at most ${max} characters`);
  return v;
}

export function optionalBoolean(args: Record<string, unknown>, name: string): boolean | undefined {
  const v = args[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw new ToolError(`${name} must be a boolean`);
  return v;
}

export function optionalInteger(
  args: Record<string, unknown>,
  name: string,
  min: number,
  max: number,
): number | undefined {
  const v = args[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw new ToolError(`${name} must be an integer between ${min} and ${max}`);
  }
  return v;
}
