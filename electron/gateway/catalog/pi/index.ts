// Pi as a catalog provider: v3 JSONL sessions under `<agentDir>/sessions` (`PI_CODING_AGENT_DIR`,
// or a flat `PI_CODING_AGENT_SESSION_DIR`), read from a byte offset. Pi has no "continue" from
// Sightline yet.
import path from 'node:path';
import { UUID, type ProviderModule } from '../provider';
import { jsonlSource } from '../kit/jsonl-source';
import { piCatalog } from './discovery';
import { piRules } from './rules';

export const piProvider: ProviderModule = {
  id: 'pi',
  label: 'Pi',
  threadId: UUID,
  defaultRoot(env, home) {
    const agentDir = env.PI_CODING_AGENT_DIR || path.join(home, '.pi', 'agent');
    return env.PI_CODING_AGENT_SESSION_DIR || path.join(agentDir, 'sessions');
  },
  open(root, io) {
    return { ...piCatalog(root, io.fs), ...jsonlSource({ rules: piRules, fs: io.fs }) };
  },
};
