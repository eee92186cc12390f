// What an ACP agent asks of the person while it works, and what the transcript says of it: its
// permission questions (answered by the person alone, the answer written as a line) and its
// terminal commands (each one a transcript entry; with `askTerminal`, run only after a yes).
import type { TerminalExitStatus } from '@agentclientprotocol/sdk';
import { describeCommand, type CommandLine } from '../../trust/consent';
import type { Live, LiveTable } from './live-table';
import type { TerminalHooks } from './terminals';
import type { AcpChildOptions } from './types';

/** The transcript line of an agent's terminal command: what ran, where, and how it ended. */
export function terminalText(root: string, c: CommandLine, end?: TerminalExitStatus | 'declined'): string {
  const where = c.cwd && c.cwd !== root ? ` (in ${c.cwd})` : '';
  const env = Object.keys(c.env ?? {});
  const head = `$ ${describeCommand(c)}${where}${env.length ? ` [env: ${env.join(', ')}]` : ''}`;
  if (end === undefined) return head;
  if (end === 'declined') return `${head} → declined by the person`;
  if (end.signal) return `${head} → killed by ${end.signal}`;
  return `${head} → ${end.exitCode === null ? 'could not run' : `exit code ${end.exitCode}`}`;
}

/** The agent's terminal commands as transcript entries (relative to `root`, the session folder). */
export function terminalHooks(t: LiveTable, key: string, l: Live, root: string): TerminalHooks {
  const note = (id: string, text: string) => {
    t.flush(key, l);
    t.append(key, l, { role: 'tool', actorType: 'agent', toolName: 'terminal', toolCallId: id, text });
  };
  return {
    ...(l.profile.askTerminal
      ? {
          approve: (command: CommandLine) =>
            t.deps.consent
              .confirm({
                kind: 'terminal',
                title: `The agent of ${key} wants to run a terminal command`,
                command,
                sessionKey: key,
              })
              .catch((err: unknown) => {
                note('terminal', terminalText(root, command, 'declined'));
                throw err;
              }),
        }
      : {}),
    started: (id, command) => note(id, terminalText(root, command)),
    exited: (id, command, status) => note(id, terminalText(root, command, status)),
  };
}

/** A permission question of the agent: the person's answer goes back, and into the transcript. */
export function permissionHook(t: LiveTable, key: string, l: Live): AcpChildOptions['onPermission'] {
  return async (req) => {
    const option = await t.deps.permissions.ask(
      { id: req.id, sessionKey: key, title: req.title, options: req.options },
      (_option, decision) => {
        t.flush(key, l);
        t.append(key, l, {
          role: 'system',
          actorType: 'human',
          actorId: 'local-user',
          text: `Permission "${req.title}": ${decision}`,
        });
      },
    );
    return option ? { outcome: 'selected', optionId: option.optionId } : { outcome: 'cancelled' };
  };
}
