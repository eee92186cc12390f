// "Continue" on a node (issue 19.5): the provider's CLI runs on this machine, without a shell, in
// the folder the gateway recorded at adoption when it still exists. Only a node started with
// --allow-continue gets here.
import fs from 'node:fs';
import { runCli } from '../gateway/catalog/continue';
import type { ContinueCommand } from '../gateway/catalog/provider';

export async function cliProgramAndRun(
  cmd: ContinueCommand,
  opts: { env: NodeJS.ProcessEnv; cwd: string | null },
): Promise<{ stdout: string }> {
  const cwd = opts.cwd && fs.existsSync(opts.cwd) ? opts.cwd : undefined;
  return runCli(cmd, { env: opts.env, ...(cwd ? { cwd } : {}) });
}
