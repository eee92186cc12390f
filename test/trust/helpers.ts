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

/** A fake CLI named `name` in a fresh folder: records its argv and cwd, prints a reply. */
export function fakeCli(name: string): { bin: string; calls: () => { args: string[]; cwd: string }[] } {
  const bin = tempDir();
  const log = path.join(bin, 'calls.jsonl');
  fs.writeFileSync(
    path.join(bin, name),
    `#!${process.execPath}
require('node:fs').appendFileSync(${JSON.stringify(log)}, JSON.stringify({ args: process.argv.slice(2), cwd: process.cwd() }) + '\\n');
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
