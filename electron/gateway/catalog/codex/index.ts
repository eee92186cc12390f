// Codex CLI as a catalog provider: rollouts under `$CODEX_HOME/sessions` (else
// `~/.codex/sessions`), read from a byte offset; a rollout compressed to `.jsonl.zst` or moved to
// `archived_sessions/` lives on; continued with `codex exec resume -- <id> <text>` (the rollout's
// UUID and the text both after `--`, so neither is ever read as an option).
import path from 'node:path';
import { UUID, type ProviderModule } from '../provider';
import { jsonlSource } from '../kit/jsonl-source';
import { zstdHead, zstdSize } from '../kit/windows';
import { codexArchiveDir, codexCatalog, codexExistsElsewhere } from './discovery';
import { codexRules } from './rules';

export const codexProvider: ProviderModule = {
  id: 'codex',
  label: 'Codex',
  threadId: UUID,
  defaultRoot(env, home) {
    return path.join(env.CODEX_HOME || path.join(home, '.codex'), 'sessions');
  },
  extraRoots: (root) => [codexArchiveDir(root)],
  open(root, io) {
    return {
      ...codexCatalog(root, io.fs),
      ...jsonlSource({
        rules: codexRules,
        fs: io.fs,
        existsElsewhere: (file) => codexExistsElsewhere(io.fs, root, file),
        // Codex decompresses a cold rollout before it appends, so its offsets stay valid.
        cold: {
          size: (file) => zstdSize(io.fs, `${file}.zst`),
          head: (file, limit) => zstdHead(io.fs, `${file}.zst`, limit),
        },
      }),
      continueCommand: (threadId, text) => ({
        command: 'codex',
        args: ['exec', 'resume', '--', threadId, text],
      }),
    };
  },
};
