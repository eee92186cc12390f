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

/** One way an agent offers to be authenticated (ACP `authMethods`), as the person sees it. */
export interface AuthMethodView {
  id: string;
  name: string;
  description?: string;
  /**
   * `agent`: ACP `authenticate` does it; `terminal`: the person runs `command` in a terminal;
   * `apiKey`: an agent method that only means "the agent reads an API key from its environment"
   * (Gemini's `gemini-api-key`), so the person gives the profile the key instead.
   */
  kind: 'agent' | 'terminal' | 'apiKey';
  /** API-key methods: the variable the method names, when it names one. */
  keyEnv?: string;
  /** Terminal methods: the agent's own login command line (the profile's, with the method's args). */
  command?: string[];
}

/** What a session whose agent answered authRequired can do about it (`acp:auth:get`). */
export interface AcpAuthView {
  sessionKey: string;
  profileId: string;
  profileName: string;
  methods: AuthMethodView[];
  /** The variable an API key goes into for this agent, when known. */
  apiKeyEnv?: string;
  /** The profile has that variable set already. */
  hasKey: boolean;
}
