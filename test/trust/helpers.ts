// Helpers for the trust tests: a consent port that records every question and answers from a
// script, the fixture ACP agent's path, and a fake upstream CLI on a private PATH.
import path from 'node:path';
import type { AskPerson, ConsentQuestion } from '../../electron/gateway';
import { CLAUDE_TURN, fakeCli as sharedFakeCli, type FakeCli } from '../helpers/fake-cli';

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
 * A fake CLI named `name` in a fresh folder (test/helpers/fake-cli.ts). With `claudeTranscript`
 * it also appends the turn to that Claude Code transcript as the real CLI does (the prompt, then
 * the reply), so a live adopted session shows the reply from there.
 */
export function fakeCli(name: string, opts: { claudeTranscript?: string } = {}): FakeCli {
  return sharedFakeCli(
    name,
    opts.claudeTranscript ? { transcript: { file: opts.claudeTranscript, row: CLAUDE_TURN } } : {},
  );
}
