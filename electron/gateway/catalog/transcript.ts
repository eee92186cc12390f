// What adoption imports for reading in Sightline: the prompts and replies of the upstream
// transcript (not tool traffic), from a bounded tail of the source.
import { claudeRules } from './claude-rules';
import { codexRules } from './codex-rules';
import { readAt, type CatalogFs } from './fsio';
import { opencodeTranscript } from './opencode';
import { ocVisibleText } from './opencode-rules';
import { piRules } from './pi-rules';
import type { SourceRef } from './provider';
import { contentText, obj, str, type Row } from './rules';
import { rowsOf, zstdHead } from './windows';
import type { CatalogProvider } from '../types';

export interface ImportedMessage {
  role: 'user' | 'assistant' | 'system' | 'tool';
  actorType: 'human' | 'agent' | 'system';
  text: string;
  createdAt?: number;
}

export const IMPORT_BYTES = 8 * 1024 * 1024;
export const IMPORT_MESSAGES = 500;
const TEXT_CAP = 64 * 1024;

function cap(t: string): string {
  return t.length > TEXT_CAP ? `${t.slice(0, TEXT_CAP)}…` : t;
}

function assistantText(content: unknown): string | undefined {
  if (!Array.isArray(content)) return str(content);
  const parts = content.filter((b) => obj(b)?.type === 'text').map((b) => str(obj(b)?.text) ?? '');
  return parts.length ? parts.join('\n') : undefined;
}

function fromRow(provider: CatalogProvider, r: Row): ImportedMessage | undefined {
  const human = (rules: typeof claudeRules): ImportedMessage | undefined => {
    const text = rules.text(r);
    const at = rules.time(r);
    return text
      ? { role: 'user', actorType: 'human', text: cap(text), ...(at !== undefined ? { createdAt: at } : {}) }
      : undefined;
  };
  const agent = (text: string | undefined, at: number | undefined): ImportedMessage | undefined =>
    text && text.trim()
      ? {
          role: 'assistant',
          actorType: 'agent',
          text: cap(text),
          ...(at !== undefined ? { createdAt: at } : {}),
        }
      : undefined;
  switch (provider) {
    case 'claude':
      if (claudeRules.human(r)) return human(claudeRules);
      if (r.type === 'assistant' && r.isSidechain !== true)
        return agent(assistantText(obj(r.message)?.content), claudeRules.time(r));
      return undefined;
    case 'codex': {
      if (codexRules.human(r)) return human(codexRules);
      const p = obj(r.payload);
      if (r.type === 'event_msg' && p?.type === 'agent_message')
        return agent(str(p.message), codexRules.time(r));
      // Paginated rollouts (0.148+) keep the reply only as a completed AgentMessage item.
      const item = obj(p?.item);
      if (r.type === 'event_msg' && p?.type === 'item_completed' && item?.type === 'AgentMessage')
        return agent(contentText(item.content), codexRules.time(r));
      return undefined;
    }
    case 'pi': {
      const m = obj(r.message);
      if (piRules.human(r)) {
        const msg = human(piRules);
        return msg && m?.role === 'bashExecution' ? { ...msg, text: `!${msg.text}` } : msg;
      }
      if (r.type === 'message' && m?.role === 'assistant')
        return agent(assistantText(m.content), piRules.time(r));
      return undefined;
    }
    case 'opencode':
      return undefined;
  }
}

export function readTranscript(provider: CatalogProvider, ref: SourceRef, cfs: CatalogFs): ImportedMessage[] {
  if (ref.kind !== 'file') {
    return opencodeTranscript(ref, IMPORT_MESSAGES).flatMap((m): ImportedMessage[] => {
      if (m.role === 'user') {
        const t = ocVisibleText(m);
        return t ? [{ role: 'user', actorType: 'human', text: cap(t), createdAt: m.createdAt }] : [];
      }
      const t = contentText(m.parts.filter((p) => p.type === 'text' && !p.synthetic));
      return m.role === 'assistant' && t
        ? [{ role: 'assistant', actorType: 'agent', text: cap(t), createdAt: m.createdAt }]
        : [];
    });
  }
  let buf: Buffer;
  let skipFirst = false;
  try {
    const size = cfs.statSync(ref.path).size;
    const start = Math.max(0, size - IMPORT_BYTES);
    buf = readAt(cfs, ref.path, start, size - start);
    skipFirst = start > 0;
  } catch {
    // A cold Codex rollout: read the compressed twin's head instead.
    buf = zstdHead(cfs, `${ref.path}.zst`, IMPORT_BYTES);
  }
  const out: ImportedMessage[] = [];
  for (const r of rowsOf(buf, skipFirst)) {
    const m = fromRow(provider, r);
    if (m) out.push(m);
  }
  return out.slice(-IMPORT_MESSAGES);
}
