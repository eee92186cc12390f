// `gateway.tools` (contract): runs an agent tool on behalf of a calling session, exactly as a
// model's tool call does. The caller's identity is explicit and parsed here, once.
import { parseSessionKey } from '../../../shared/session-keys';
import type { Tools } from '../types';
import type { ToolRegistry } from './registry';

export function createTools(registry: ToolRegistry): Tools {
  return {
    call(caller, tool, args) {
      if (typeof caller !== 'string' || caller.length === 0) {
        return Promise.resolve({ ok: false, error: 'callerSessionKey is required' });
      }
      const parsed = parseSessionKey(caller);
      return registry.call({ caller: parsed.key, callerAgentId: parsed.agentId ?? 'main' }, tool, args);
    },
  };
}
