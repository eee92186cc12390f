// Adding and starting real agents (issue 28): what an agent needs in its environment, the start
// check's progress, how an agent asks to be authenticated, and the tokens and cost it reports.

/** What a registry agent needs from the person before it can work. */
export interface AgentNeeds {
  /** The variable its API key goes into (sealed at rest like every profile variable). */
  apiKeyEnv?: string;
  /** The variable that points it at another endpoint (a proxy, a gateway, a local model). */
  baseUrlEnv?: string;
  /** It refuses to run as root unless `IS_SANDBOX=1` is set, and Sightline runs as root now. */
  sandboxAsRoot?: boolean;
  /** A plain sentence about where else the agent takes its credentials from. */
  note?: string;
}

export type AcpStartStage = 'spawning' | 'initialize' | 'session/new' | 'ready' | 'stderr';

/** One step of an agent's start check, pushed while the person waits (`acp:progress`). */
export interface AcpStartProgress {
  /** The registry agent being installed. */
  agentId: string;
  stage: AcpStartStage;
  text: string;
  /** Since the start check began. */
  elapsedMs: number;
}
