// Consent: nothing starts a program the person has not seen. Every command line Sightline is about
// to run for the first time (an ACP profile's agent, an adopted session's continue command, a
// terminal command of a profile that asks) goes through `confirm`, which shows the exact program,
// arguments, folder and environment to the person through one pluggable port and remembers what
// was allowed. The port is the host's: Electron's main process plugs a native dialog (the page
// cannot answer it), browser mode plugs the page prompt below (there the token holder is the
// person), and an in-process gateway with no port is trusted code: its scripts and tests are the
// person's own, so confirm allows.
import { randomUUID } from 'node:crypto';
import { maskSecret } from '../../../shared/secrets';
import { GatewayError, notFound } from '../errors';
import type { ConsentKind, ConsentRequestView, GatewayEvent } from '../types';
import type { ConsentStore } from './consent-store';

/** A command line exactly as it will be spawned (no shell). */
export interface CommandLine {
  program: string;
  args: string[];
  cwd?: string;
  /** Variables added to the gateway's environment. */
  env?: Record<string, string>;
}

export interface ConsentQuestion {
  id: string;
  kind: ConsentKind;
  title: string;
  command: CommandLine;
  sessionKey?: string;
  allowAgents?: boolean;
  createdAt: number;
}

/** The port: asks the person, resolves true when they allow it. */
export type AskPerson = (question: ConsentQuestion) => Promise<boolean>;

export const DECLINED = 'declined by the person';

/** The person said no (or could not be asked): nothing ran. */
export class ConsentDeclinedError extends GatewayError {
  constructor() {
    super('forbidden', DECLINED);
    this.name = 'ConsentDeclinedError';
  }
}

/** The view of a question the renderer may see: environment values masked. */
export function consentView(q: ConsentQuestion): ConsentRequestView {
  return {
    id: q.id,
    kind: q.kind,
    title: q.title,
    program: q.command.program,
    args: [...q.command.args],
    ...(q.command.cwd ? { cwd: q.command.cwd } : {}),
    env: Object.entries(q.command.env ?? {}).map(([name, value]) => ({ name, value: maskSecret(value) })),
    ...(q.sessionKey ? { sessionKey: q.sessionKey } : {}),
    ...(q.allowAgents !== undefined ? { allowAgents: q.allowAgents } : {}),
    createdAt: q.createdAt,
  };
}

/** The command line as one readable text: each argument quoted when it needs it. */
export function describeCommand(c: CommandLine): string {
  const quote = (a: string) => (a !== '' && /^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a));
  return [c.program, ...c.args].map(quote).join(' ');
}

export type Consent = ReturnType<typeof createConsent>;

/** A question waiting in the page for the person's answer. */
interface Waiting {
  question: ConsentQuestion;
  settle: (allowed: boolean) => void;
}

/**
 * Browser mode's port: the question waits in the page (consent:list / consent:respond) until the
 * person answers or the gateway closes; both ends are announced as events.
 */
function pagePromptOver(
  waiting: Map<string, Waiting>,
  emit: (e: GatewayEvent) => void,
  isClosed: () => boolean,
): AskPerson {
  return (question) =>
    new Promise<boolean>((resolve) => {
      if (isClosed()) return resolve(false);
      waiting.set(question.id, {
        question,
        settle: (allowed) => {
          if (!waiting.delete(question.id)) return;
          emit({ type: 'consent:resolved', requestId: question.id, allowed });
          resolve(allowed);
        },
      });
      emit({ type: 'consent:request', request: consentView(question) });
    });
}

export function createConsent(deps: {
  store: ConsentStore;
  now: () => number;
  emit: (e: GatewayEvent) => void;
}) {
  const s = deps.store;
  const waiting = new Map<string, Waiting>();
  let port: AskPerson | undefined;
  let closed = false;
  const pagePrompt = pagePromptOver(waiting, deps.emit, () => closed);

  const consent = {
    pagePrompt,

    /** Plugs the host's way of asking the person; undefined: in-process, trusted (allows). */
    plug(ask: AskPerson | undefined): void {
      port = ask;
    },

    /** True when the person allowed `key` before (or trusted code did). */
    remembered: (key: string): boolean => s.has(key),

    remember(key: string, summary: string): void {
      s.put(key, summary.slice(0, 2000), deps.now());
    },

    forget(key: string): void {
      s.forget(key);
    },

    /**
     * Resolves once the person allowed the command line; throws ConsentDeclinedError otherwise.
     * With `remember`, an earlier yes for that key counts and a new yes is stored under it.
     */
    async confirm(
      input: Omit<ConsentQuestion, 'id' | 'createdAt'>,
      opts: { remember?: string; askAgain?: boolean } = {},
    ): Promise<void> {
      if (opts.remember && !opts.askAgain && consent.remembered(opts.remember)) return;
      const question: ConsentQuestion = { ...input, id: `consent-${randomUUID()}`, createdAt: deps.now() };
      let allowed = false;
      try {
        allowed = port ? await port(question) : true;
      } catch {
        allowed = false; // a port that fails has not asked anybody
      }
      if (!allowed || closed) throw new ConsentDeclinedError();
      if (opts.remember) consent.remember(opts.remember, describeCommand(input.command));
    },

    /** Questions waiting in the page (browser mode's port only). */
    pending: (): ConsentRequestView[] => [...waiting.values()].map((w) => consentView(w.question)),

    /** The page's answer. Only questions asked through the page prompt can be answered here. */
    respond(requestId: string, allowed: boolean): void {
      const w = waiting.get(requestId);
      if (!w) throw notFound(`Unknown consent request: ${requestId}`);
      w.settle(allowed);
    },

    /** Every waiting question is declined: the gateway is closing. */
    close(): void {
      closed = true;
      for (const w of [...waiting.values()]) w.settle(false);
    },
  };
  return consent;
}
