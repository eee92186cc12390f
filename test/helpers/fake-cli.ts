// The one fake upstream CLI (claude, codex, …): a Node script of that name in a folder to put on
// PATH. It records each call's argv and cwd, appends the turn to a transcript when asked (as the
// real CLI writes its own), prints `reply from <name>`, and can fail with an exit code.
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from './temp';

/** JavaScript source of `(text, name) => string`: the lines one call appends to the transcript. */
export type RowSource = string;

/** A Claude Code turn as the real CLI writes it: the prompt, then the reply. */
export const CLAUDE_TURN: RowSource = `(text, name) => {
  const at = new Date().toISOString();
  const row = (type, content) => JSON.stringify({ type, isSidechain: false, message: { role: type, content }, timestamp: at }) + '\\n';
  return row('user', text) + row('assistant', [{ type: 'text', text: 'reply from ' + name }]);
}`;

export interface FakeCliOptions {
  /** The folder the script goes in (default: a fresh one). */
  bin?: string;
  /** Appends `row(lastArgument, name)` to `file` on every call. */
  transcript?: { file: string; row: RowSource };
  /** Non-zero: prints `boom` on stderr and exits with it. */
  exitCode?: number;
}

export interface FakeCli {
  bin: string;
  calls(): { args: string[]; cwd: string }[];
}

export function fakeCli(name: string, opts: FakeCliOptions = {}): FakeCli {
  const bin = opts.bin ?? tempDir('sightline-bin-');
  const log = path.join(bin, `${name}.calls.jsonl`);
  const t = opts.transcript;
  fs.writeFileSync(
    path.join(bin, name),
    `#!${process.execPath}
const fs = require('node:fs');
const args = process.argv.slice(2);
fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify({ args, cwd: process.cwd() }) + '\\n');
${t ? `fs.appendFileSync(${JSON.stringify(t.file)}, (${t.row})(args[args.length - 1], ${JSON.stringify(name)}));` : ''}
process.stdout.write('reply from ${name}\\n');
if (${opts.exitCode ?? 0}) { process.stderr.write('boom'); process.exit(${opts.exitCode ?? 0}); }
`,
    { mode: 0o755 },
  );
  const calls = () =>
    fs.existsSync(log)
      ? fs
          .readFileSync(log, 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { args: string[]; cwd: string })
      : [];
  return { bin, calls };
}
