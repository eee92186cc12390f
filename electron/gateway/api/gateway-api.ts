// Exactly the part of the gateway the API handlers call. `createGateway(...)` must be assignable
// to this type; if the gateway's shape drifts, the compiler says so here and in electron/web.
import type { LoginTerminalView } from '../../../shared/ipc/login-terminals';
import type {
  AcpProfile,
  ActorType,
  AgentConfig,
  CatalogEntry,
  CatalogProvider,
  ConsentRequestView,
  CatalogRoots,
  CursorRow,
  EventKind,
  GatewayEvent,
  Goal,
  GoalStatus,
  NodeInfo,
  NoticeEntry,
  PermissionRequestView,
  RunInfo,
  RunStatus,
  SessionImpact,
  SecretStorageInfo,
  SessionInfo,
  StartInput,
  TranscriptMessage,
} from '../types';
import type { PersonStores } from '../person';
import type { StateEventRow } from '../../../shared/domain';
import type {
  AcpAuthView,
  AcpInstallInfo,
  RegistryDistribution,
  RegistryInstallPlan,
  RegistryListingView,
} from '../../../shared/ipc/types';
import type { AgentChanges } from '../runtime/agents';
import type { McpCredentialInfo } from '../mcp';
import type { AskPerson, ConsentQuestion } from '../trust/consent';
import type { RunOverview } from '../runtime/control';
import type { MessageHit } from '../sessions/transcripts';
import type {
  ContextUse,
  Cost,
  LiveOutput,
  NoticeDelivery,
  SessionStatusView,
} from '../../../shared/ipc/types';
import type { Gateway } from '../index';

export type Actor = { type: 'human' | 'agent'; id?: string };

/** Issue 26: the sessions' worktrees (absent in test doubles that have none). */
export type WorktreesApi = Pick<
  Gateway['worktrees'],
  | 'diff'
  | 'changes'
  | 'filePatch'
  | 'merge'
  | 'discard'
  | 'overlaps'
  | 'rebase'
  | 'forget'
  | 'probe'
  | 'impact'
  | 'stats'
  | 'review'
>;

export interface GatewayApi {
  worktrees?: WorktreesApi;
  /** The person's own durable state (inbox dismissals, preferences); in memory without it. */
  person?: PersonStores;
  /** One derived status per session (issue 17.2). */
  status: {
    /** `known`: the session's live-or-latest run when the caller has it (null: never ran); saves a query. */
    get(sessionKey: string, known?: RunInfo | null): SessionStatusView;
    /** The person opened the session. */
    seen(sessionKey: string): void;
  };
  /** Running steps' output so far and the last activity line (issue 17.1). */
  live: {
    snapshot(sessionKey: string): LiveOutput | undefined;
    activity(sessionKey: string): string | undefined;
  };
  /** The notices watchers read and how each was reconciled (issue 17.3). */
  noticeHistory: {
    page(opts: { beforeId?: number; limit: number }): { delivered: NoticeDelivery[]; hasMore: boolean };
    forTranscript(watcher: string, fromId: number, toId: number): NoticeDelivery[];
  };
  sessions: {
    get(key: string, agentId?: string): SessionInfo | undefined;
    list(): SessionInfo[];
    start(input: StartInput): Promise<SessionInfo>;
    impact(key: string): SessionImpact;
    reset(key: string): void;
    delete(key: string, agentId?: string): void;
    archive(key: string, archived?: boolean): SessionInfo;
    listAdopted?(): SessionInfo[];
  };
  runs: { list(sessionKey: string): RunInfo[] };
  state: {
    version(sessionKey: string, agentId?: string): number;
    /** Every state version, keyed by versionKey(sessionKey, agentId). */
    versions(): Map<string, number>;
    timeline(
      sessionKey: string,
      opts: {
        agentId?: string;
        beforeSequence?: number;
        limit?: number;
        kinds?: EventKind[];
        actorTypes?: ActorType[];
      },
    ): StateEventRow[];
    watchers(sessionKey: string): { watchedBy: CursorRow[]; watching: CursorRow[] };
  };
  notices: {
    peek(sessionKey: string): NoticeEntry[];
    all(): { sessionKey: string; entries: NoticeEntry[] }[];
  };
  human: { send(sessionKey: string, text: string, opts?: { channel?: string }): Promise<void> };
  /** Where the catalog looks; absent in test doubles. */
  catalogRoots?: Required<CatalogRoots>;
  catalog: {
    listAsync(): Promise<CatalogEntry[]>;
    adopt(input: { provider: CatalogProvider; threadId: string }): SessionInfo;
    /** A session on a paired node (hostId): resolves once adopted. */
    adopt(input: {
      provider: CatalogProvider;
      threadId: string;
      hostId?: string;
    }): SessionInfo | Promise<SessionInfo>;
    nodes: {
      add(input: {
        ssh?: string;
        command?: string[];
        nodeCommand?: string[];
        name?: string;
        allowContinue?: boolean;
      }): Promise<NodeInfo>;
      list(): NodeInfo[];
      rename(nodeId: string, name: string): NodeInfo;
      remove(nodeId: string): void;
    };
  };
  /** Agents on paired nodes (issue 30.1); absent in test doubles (no node to check on). */
  nodeAgents?: { checkFolder(nodeId: string, folder: string): Promise<string> };
  events: { on(listener: (e: GatewayEvent) => void): () => void };
  agents: {
    list(): AgentConfig[];
    save(cfg: Partial<AgentConfig> & { id: string }): AgentConfig;
    /** The person's changes from Settings (a key never follows a base URL to another host). */
    update(changes: AgentChanges): AgentConfig;
  };
  transcripts: {
    page(
      sessionKey: string,
      opts: { beforeId?: number; limit?: number },
    ): { messages: TranscriptMessage[]; hasMore: boolean };
    search(text: string, limit?: number): MessageHit[];
    changedFiles(sessionKey: string): string[];
  };
  runtime: {
    /** The live run, else the latest recorded one. */
    status(sessionKey: string): RunInfo | undefined;
    /** Queued while a turn waits; `idle` also when the session never ran. */
    sessionStatus(sessionKey: string): RunStatus;
    /** Totals over all of the session's runs. */
    tokens(sessionKey: string): { input: number; output: number };
    /** Costs per currency and the latest context window, as the session's agents reported them. */
    usage(sessionKey: string): { costs: Cost[]; context?: ContextUse };
    /** status, sessionStatus and tokens of many sessions at once. */
    overview(sessionKeys: string[]): Map<string, RunOverview>;
    cancel(sessionKey: string): boolean;
    retryable(sessionKey: string): boolean;
    /** Runs a failed session's turn again; false when nothing failed or it cannot. */
    retry(sessionKey: string): boolean;
    startDemo(): Promise<{ coordinatorKey: string; workerKeys: string[] }>;
    /** Deletes the demo's sessions and starts it again. */
    resetDemo(): Promise<{ coordinatorKey: string; workerKeys: string[] }>;
  };
  acp: {
    profiles: {
      list(): AcpProfile[];
      get(id: string): AcpProfile | undefined;
      /** Stored once the person allowed its command line; rejects `declined by the person`. */
      propose(p: AcpProfile): Promise<AcpProfile>;
      remove(id: string): boolean;
    };
    registry: {
      listing(opts?: { refresh?: boolean }): Promise<RegistryListingView>;
      plan(agentId: string, distribution?: RegistryDistribution): Promise<RegistryInstallPlan>;
      install(
        agentId: string,
        opts?: {
          distribution?: RegistryDistribution;
          confirm?: (plan: RegistryInstallPlan) => Promise<void>;
          env?: Record<string, string>;
        },
      ): Promise<AcpProfile>;
      installs: { list(): AcpInstallInfo[] };
    };
    permissions: {
      pending(): PermissionRequestView[];
      /** `undefined` rejects; false when the request is gone; throws on an unknown option. */
      respond(requestId: string, optionId: string | undefined): boolean;
    };
    auth: {
      view(sessionKey: string): AcpAuthView;
      authenticate(sessionKey: string, methodId: string): Promise<void>;
      setKey(sessionKey: string, name: string, value: string): Promise<void>;
    };
    /** Addition: login terminals (absent in test doubles that have none). */
    login?: LoginTerminalsApi;
  };
  mcp: {
    issue(
      sessionKey: string,
      opts?: { label?: string },
    ): Promise<{ id: string; secret: string; url: string; command?: string[] }>;
    /** A new session for an agent outside Sightline, with its credential (both or neither). */
    issueForNewSession(
      name: string,
      opts?: { label?: string },
    ): Promise<{ id: string; sessionKey: string; secret: string; url: string; command?: string[] }>;
    revoke(id: string): boolean;
    list(): McpCredentialInfo[];
    status(): { url: string; port: number } | undefined;
  };
  consent: {
    /** The host's way of asking the person (Electron: a native dialog; browser mode: the page). */
    plug(ask: AskPerson | undefined): void;
    /** Browser mode's port: questions wait in the page. */
    pagePrompt: AskPerson;
    /** Asks the person to allow a command line (once); throws when they decline. */
    confirm(input: Omit<ConsentQuestion, 'id' | 'createdAt'>): Promise<void>;
    /** Questions waiting in the page (browser mode only; Electron asks natively). */
    pending(): ConsentRequestView[];
    respond(requestId: string, allowed: boolean): void;
  };
  secrets: { info: SecretStorageInfo };
  backups: {
    readonly databasePath: string;
    list(): { name: string; takenAt: number; bytes: number }[];
  };
  goals: {
    get(sessionKey: string): Goal | undefined;
    all(): Map<string, Goal>;
    set(sessionKey: string, goal: { objective?: string; status?: GoalStatus }, actor: Actor): Goal;
    clear(sessionKey: string, actor: Actor): void;
  };
}

/** Login terminals (issue 28.5): the agent's login command on a pty, after the person allowed it. */
export interface LoginTerminalsApi {
  start(
    sessionKey: string,
    methodId: string,
    size?: { cols?: number; rows?: number },
  ): Promise<LoginTerminalView>;
  get(id: string): LoginTerminalView;
  input(id: string, data: string): void;
  resize(id: string, size: { cols: number; rows: number }): Promise<void>;
  close(id: string): void;
}
