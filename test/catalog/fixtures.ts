// Hand-made rows in the shapes of transcript-formats.md, written by tests into temp roots.
import fs from 'node:fs';
import path from 'node:path';
import { line } from './helpers';

export const CLAUDE_ID = '7c1e0d2a-5b4e-4f0a-9c33-1d2e8f6a4b90';
export const CODEX_ID = '019cb3f2-8a1b-7d30-b6e2-5f0a9c3d7e14';
export const PI_ID = 'a3f1c2d4-6b7e-4f80-9a1b-2c3d4e5f6a7b';
const CWD = '/home/ana/src/ledger-api';
const TS = '2026-03-02T09:14:05.098Z';

export function claudeUser(content: unknown, extra: Record<string, unknown> = {}): string {
  return line({
    parentUuid: null,
    isSidechain: false,
    userType: 'external',
    cwd: CWD,
    sessionId: CLAUDE_ID,
    type: 'user',
    message: { role: 'user', content },
    uuid: 'u',
    timestamp: TS,
    ...extra,
  });
}

export function claudeAssistant(text: string): string {
  return line({
    isSidechain: false,
    cwd: CWD,
    sessionId: CLAUDE_ID,
    type: 'assistant',
    message: { id: 'msg_1', role: 'assistant', content: [{ type: 'text', text }] },
    uuid: 'a',
    timestamp: TS,
  });
}

/**
 * Points a written transcript's working folder at `cwd` (a folder that exists): "continue" runs
 * only in the folder recorded at adoption, and only when it exists.
 */
export function relocate(file: string, cwd: string): string {
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replaceAll(JSON.stringify(CWD), JSON.stringify(cwd)));
  return file;
}

export function writeClaude(root: string, body = ''): string {
  const file = path.join(root, '-home-ana-src-ledger-api', `${CLAUDE_ID}.jsonl`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(
    file,
    claudeUser('The /invoices endpoint returns 500. Find out why.') + claudeAssistant('Looking.') + body,
  );
  return file;
}

export function codexMeta(source: unknown = 'cli', id = CODEX_ID): string {
  return line({
    timestamp: '2026-03-02T09:20:11.402Z',
    type: 'session_meta',
    payload: {
      id,
      timestamp: '2026-03-02T09:20:11.377Z',
      cwd: CWD,
      originator: 'codex_cli_rs',
      cli_version: '0.98.0',
      source,
      base_instructions: { text: 'You are Codex' },
    },
  });
}

export function codexUserMessage(message: string, extra: Record<string, unknown> = {}): string {
  return line({
    timestamp: '2026-03-02T09:20:11.417Z',
    type: 'event_msg',
    payload: { type: 'user_message', message, images: [], local_images: [], text_elements: [], ...extra },
  });
}

export function codexResponseUser(text: string): string {
  return line({
    timestamp: '2026-03-02T09:20:11.416Z',
    type: 'response_item',
    payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] },
  });
}

export function codexRolloutName(id = CODEX_ID): string {
  return `rollout-2026-03-02T09-20-11-${id}.jsonl`;
}

export function writeCodex(root: string, body = '', id = CODEX_ID, source: unknown = 'cli'): string {
  const file = path.join(root, '2026', '03', '02', codexRolloutName(id));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, codexMeta(source, id) + codexUserMessage('add a regression test') + body);
  return file;
}

export function piMessage(message: Record<string, unknown>, id = 'c41d2e3f'): string {
  return line({
    type: 'message',
    id,
    parentId: null,
    timestamp: '2026-03-02T09:30:15.004Z',
    message: { timestamp: 1772443815000, ...message },
  });
}

export function writePi(root: string, body = ''): string {
  const file = path.join(root, '--home-ana-src-ledger-api--', `2026-03-02T09-30-00-120Z_${PI_ID}.jsonl`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(
    file,
    line({ type: 'session', version: 3, id: PI_ID, timestamp: '2026-03-02T09:30:00.120Z', cwd: CWD }) +
      piMessage({ role: 'user', content: [{ type: 'text', text: 'why does /invoices 500?' }] }) +
      piMessage({ role: 'assistant', content: [{ type: 'text', text: 'Reading.' }] }, 'd52e3f40') +
      body,
  );
  return file;
}
