// "Continue" on a node (issue 19.5): the provider's CLI runs on this machine, without a shell, in
// the folder the gateway recorded at adoption, and only if that folder exists (the same rules as a
// local continue). Only a node started with --allow-continue gets here.
import { cliProgram, continueFolder, runCli } from '../gateway/catalog/continue';
import type { ContinueCommand } from '../gateway/catalog/provider';

export function runContinue(
  cmd: ContinueCommand,
  opts: { env: NodeJS.ProcessEnv; cwd: string | null },
): Promise<{ stdout: string }> {
  const program = cliProgram(cmd.command, opts.env);
  return runCli(program, cmd.args, { env: opts.env, cwd: continueFolder(opts.cwd) });
}
