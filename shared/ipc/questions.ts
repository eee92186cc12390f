// Questions waiting for the person: permission requests and consent to run a program.
// Declarations only; shared/ipc/types.ts re-exports every domain file.

/**
 * A question waiting for the person (and nobody else): a permission question from an ACP child,
 * or an agent asking to send into an adopted upstream session (`requestedBy` names it).
 */
export interface PermissionRequestView {
  id: string;
  sessionKey: string;
  title: string;
  options: { optionId: string; name: string; kind: string }[];
  createdAt: number;
  /** The agent session that asks, when it is not the session's own agent. */
  requestedBy?: string;
  /**
   * On a gateway a team shares: the name of the person this request waits for, when it is not
   * the one reading it (shown as "Bob was asked", without the answer buttons).
   */
  askedOf?: string;
}

/** What a consent question is about: a program Sightline is about to run for the first time. */
// `credential`: an outside agent's MCP credential that reaches more than its own sessions.
export const CONSENT_KINDS = ['acp-profile', 'continue', 'terminal', 'node', 'credential'] as const;
export type ConsentKind = (typeof CONSENT_KINDS)[number];

/**
 * A command line waiting for the person's consent (browser mode shows it in the page; Electron
 * asks with a native dialog instead and never sends these). Environment values are masked.
 */
export interface ConsentRequestView {
  id: string;
  kind: ConsentKind;
  /** One line: what the program is for. */
  title: string;
  /** The exact program and arguments that will run. */
  program: string;
  args: string[];
  cwd?: string;
  /** Variables added to the environment; values masked to their last 4 characters at most. */
  env: { name: string; value: string }[];
  sessionKey?: string;
  /** ACP profiles: whether agents may start it too. */
  allowAgents?: boolean;
  createdAt: number;
}
