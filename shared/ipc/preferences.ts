// The person's preferences.
// Declarations only; shared/ipc/types.ts re-exports every domain file.

export const THEMES = ['system', 'light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];

/** Which events notify the person (desktop notification or browser Notification API). */
export interface NotificationPreferences {
  /** A session waits for the person (permission request, question, consent). */
  waiting: boolean;
  /** A run failed. */
  failed: boolean;
  /** A run finished that took at least `longRunSeconds`. */
  finished: boolean;
  longRunSeconds: number;
  /** An adopted session's upstream source disappeared. */
  upstreamMissing: boolean;
}

/** Which categories the Inbox lists besides those that always need the person. */
export interface InboxPreferences {
  /** Runs that finished since the person last opened their session ("done — unseen"). */
  doneUnseen: boolean;
}

/** Agents on paired nodes (issue 30.1). */
export interface NodePreferences {
  /** How long an agent on a node keeps running after its link drops, waiting to be re-attached. */
  agentGraceSeconds: number;
}

/** The person's UI preferences, kept by the gateway (browser mode changes port, hence origin). */
export interface Preferences {
  theme: Theme;
  notifications: NotificationPreferences;
  inbox: InboxPreferences;
  nodes: NodePreferences;
}

export const DEFAULT_PREFERENCES: Preferences = {
  theme: 'system',
  notifications: { waiting: true, failed: true, finished: false, longRunSeconds: 120, upstreamMissing: true },
  inbox: { doneUnseen: true },
  nodes: { agentGraceSeconds: 120 },
};
