// Claude Code as a catalog provider: one JSONL file per session under
// `$CLAUDE_CONFIG_DIR/projects` (else `~/.claude/projects`), read from a byte offset; continued
// with `claude --resume=<id> -p <text>` (the id is a UUID, and the value of its flag).
import path from 'node:path';
import { cliText, UUID, type ProviderModule } from '../provider';
import { jsonlSource } from '../kit/jsonl-source';
import { claudeCatalog } from './discovery';
import { claudeRules } from './rules';

export const claudeProvider: ProviderModule = {
  id: 'claude',
  label: 'Claude Code',
  threadId: UUID,
  defaultRoot(env, home) {
    const dir = env.CLAUDE_CONFIG_DIR?.split(',')[0]?.trim() || path.join(home, '.claude');
    return path.join(dir, 'projects');
  },
  open(root, io) {
    return {
      ...claudeCatalog(root, io.fs),
      ...jsonlSource({ rules: claudeRules, fs: io.fs }),
      continueCommand: (threadId, text) => ({
        command: 'claude',
        args: [`--resume=${threadId}`, '-p', ...cliText(text)],
      }),
    };
  },
};
