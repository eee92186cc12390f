// Helpers for the trust tests: a consent port that records every question and answers from a
// script, the fixture ACP agent's path, and a fake upstream CLI on a private PATH.
import fs from 'node:fs';
import path from 'node:path';
import type { AskPerson, ConsentQuestion } from '../../electron/gateway';
import { tempDir } from '../helpers/gateway';

export const AGENT = path.resolve('test/fixtures/acp-agent/agent.mjs');

export interface RecordingPort {
  ask: AskPerson;
  questions: ConsentQuestion[];
  /** Answers for the next questions, in order; when empty, `otherwise` answers. */
  answers: boolean[];
  otherwise: boolean;
}

export function recordingPort(otherwise = true): RecordingPort {
  const port: RecordingPort = {
    questions: [],
    answers: [],
    otherwise,
    ask: async (q) => {
      port.questions.push(q);
      return port.answers.length ? port.answers.shift()! : port.otherwise;
    },
  };
  return port;
}

/**
 * A fake CLI named `name` in a fresh folder: records its argv and cwd, prints a reply. With
 * `claudeTranscript` it also appends the turn to that Claude Code transcript as the real CLI
 * does (the prompt, then the reply), so a live adopted session shows the reply from there.
 */
export function fakeCli(
  name: string,
  opts: { claudeTranscript?: string } = {},
): { bin: string; calls: () => { args: string[]; cwd: string }[] } {
  const bin = tempDir();
  const log = path.join(bin, 'calls.jsonl');
  const transcript = opts.claudeTranscript;
  fs.writeFileSync(
    path.join(bin, name),
    `#!${process.execPath}
const fs = require('node:fs');
const args = process.argv.slice(2);
fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify({ args, cwd: process.cwd() }) + '\\n');
const transcript = ${JSON.stringify(transcript ?? null)};
if (transcript) {
  const at = new Date().toISOString();
  const row = (type, content) => JSON.stringify({ type, isSidechain: false, message: { role: type, content }, timestamp: at }) + '\\n';
  fs.appendFileSync(transcript, row('user', args[args.length - 1]) + row('assistant', [{ type: 'text', text: 'reply from ${name}' }]));
}
process.stdout.write('reply from ${name}\\n');
`,
    { mode: 0o755 },
  );
  return {
    bin,
    calls: () =>
      fs.existsSync(log)
        ? fs
            .readFileSync(log, 'utf8')
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l) as { args: string[]; cwd: string })
        : [],
  };
}
