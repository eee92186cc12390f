// "Jot", a made-up fifth agent tool, as a catalog provider: everything about it is in this folder
// (discovery, rules, the JSONL probe from the kit, the continue command); the catalog learns of it
// from one registration line. A session is `<root>/<id>.jsonl`: a `meta` row, then `say` rows by
// the person or the bot, and `call` rows for the bot's tool calls.
import path from 'node:path';
import type { CatalogProvider } from '../../../electron/gateway/types';
import { cliText, type ProviderModule } from '../../../electron/gateway/catalog/provider';
import { jsonlSource } from '../../../electron/gateway/catalog/kit/jsonl-source';
import {
  isoTime,
  message,
  pathIs,
  str,
  toolCall,
  type RowRules,
} from '../../../electron/gateway/catalog/kit/rules';
import { headRows, listDir, oneLine } from '../../../electron/gateway/catalog/kit/windows';

// The contract's provider names are the four tools the app ships; a test tool is cast in.
const JOT = 'jot' as CatalogProvider;

export const jotRules: RowRules = {
  human: (row) => row.kind === 'say' && row.who === 'person',
  text: (row) => str(row.text),
  time: (row) => isoTime(row.at),
  visible(row) {
    if (row.kind === 'say')
      return message(row.who === 'person' ? 'user' : 'assistant', str(row.text), isoTime(row.at));
    if (row.kind === 'call')
      return message('assistant', '', isoTime(row.at), [toolCall(row.id, row.tool, row.args)]);
    return undefined;
  },
  scan: {
    capture: (p) => pathIs(p, 'kind') || pathIs(p, 'who') || pathIs(p, 'at') || pathIs(p, 'text'),
    text: (p) => pathIs(p, 'text'),
  },
};

export const jotProvider: ProviderModule = {
  id: JOT,
  label: 'Jot',
  threadId: /^jot-\d{4}$/,
  defaultRoot: (env, home) => env.JOT_HOME || path.join(home, '.jot', 'sessions'),
  open(root, io) {
    function describe(file: string) {
      const st = io.fs.statSync(file);
      const rows = headRows(io.fs, file, st.size, (r) => r.some(jotRules.human));
      const meta = rows[0];
      const id = str(meta?.id);
      if (meta?.kind !== 'meta' || !id) return [];
      const first = rows.find(jotRules.human);
      const cwd = str(meta.cwd);
      return [
        {
          entry: {
            provider: JOT,
            threadId: id,
            title: oneLine(str(meta.title) ?? (first ? jotRules.text(first) : undefined) ?? id),
            ...(cwd ? { cwd } : {}),
            lastActivityAt: st.mtimeMs,
            sizeBytes: st.size,
          },
          ref: { kind: 'file', path: file },
        },
      ];
    }
    const units = () =>
      listDir(io.fs, root)
        .filter((f) => f.file && f.name.endsWith('.jsonl'))
        .map((f) => path.join(root, f.name));
    return {
      units,
      describe,
      find: (threadId) =>
        /^[\w-]+$/.test(threadId)
          ? units()
              .flatMap(describe)
              .find((l) => l.entry.threadId === threadId)
          : undefined,
      ...jsonlSource({ rules: jotRules, fs: io.fs }),
      continueCommand: (threadId, text) => ({
        command: 'jot',
        args: [`--session=${threadId}`, ...cliText(text)],
      }),
    };
  },
};
