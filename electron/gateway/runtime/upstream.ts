// The runners of sessions whose agent runs outside Sightline: an adopted session (Claude Code,
// Codex, OpenCode, Pi) takes a message through its own CLI, upstream (the catalog's
// continuation); an outside agent's session (an MCP credential from Settings) takes none, since
// its agent runs in a person's terminal and talks to Sightline only through MCP. Neither has
// turns Sightline runs, so there is nothing to cancel, reset or retry here.
import { parseSessionKey } from '../../../shared/session-keys';
import { invalidArgument } from '../errors';
import type { AskToSend } from './ask-to-send';
import type { SessionRunner } from './runner';

const idle = { busy: false, queued: 0 };

/** What upstream-only runners share: no turns of Sightline's own. */
const noTurns = {
  system: () => false,
  cancel: () => false,
  reset: () => undefined,
  forget: () => undefined,
  status: () => idle,
  retry: () => false,
  retryable: () => false,
  close: () => undefined,
};

export function createAdoptedRunner(deps: {
  /** The catalog's continuation of an adopted session upstream. */
  continueUpstream: (sessionKey: string, text: string) => Promise<void>;
  askToSend: AskToSend;
}): SessionRunner {
  return {
    ...noTurns,
    name: 'adopted',
    accepts: (key) => parseSessionKey(key).kind === 'adopted',
    // An agent's message runs the upstream CLI for it: it waits for the person's yes.
    async deliver(key, text, from, signal) {
      const tool = parseSessionKey(key).rest.split(':')[1] ?? 'upstream';
      if (from.type === 'agent') await deps.askToSend(key, text, from.id, `runs the ${tool} CLI`, signal);
      await deps.continueUpstream(key, text);
      return { channel: 'desktop' };
    },
  };
}

export function createExternalRunner(): SessionRunner {
  return {
    ...noTurns,
    name: 'external',
    accepts: (key) => parseSessionKey(key).kind === 'external',
    deliver: (key) =>
      Promise.reject(
        invalidArgument(`${key} is run by an agent outside Sightline; Sightline cannot send it messages`),
      ),
  };
}
