// The fleet on the wire for the renderer's loads (`fleet:compact`): each session view without the
// fields that hold their default value. A fleet of 10,000 sessions that never ran is 3 MB of JSON
// as full views, half of it these defaults, and the page receives, decodes and parses all of it
// before its first paint (issue 31.4). `fleet:snapshot` still answers full views.
import type { AgentView, SessionStatusView, SessionView } from './sessions';

interface SessionDefaults {
  stateVersion: number;
  runStatus: SessionView['runStatus'];
  pendingNotices: number;
  alert: SessionView['alert'];
  goal: SessionView['goal'];
  tokens: SessionView['tokens'];
  status: SessionStatusView;
}

/** A session view with the fields that hold their default (see sessionFromWire) left out. */
export type SessionWire = Omit<SessionView, keyof SessionDefaults> & Partial<SessionDefaults>;

export interface FleetWire {
  agents: AgentView[];
  sessions: SessionWire[];
  generatedAt: number;
}

const isDefaultStatus = (s: SessionStatusView) =>
  s.status === 'idle' && s.since === 0 && Object.keys(s).length === 2;

export function sessionToWire(v: SessionView): SessionWire {
  const { stateVersion, runStatus, pendingNotices, alert, goal, tokens, status, ...rest } = v;
  const w: SessionWire = rest;
  if (stateVersion !== 0) w.stateVersion = stateVersion;
  if (runStatus !== 'none') w.runStatus = runStatus;
  if (pendingNotices !== 0) w.pendingNotices = pendingNotices;
  if (alert !== null) w.alert = alert;
  if (goal !== null) w.goal = goal;
  if (tokens.input !== 0 || tokens.output !== 0) w.tokens = tokens;
  if (!isDefaultStatus(status)) w.status = status;
  return w;
}

/**
 * The default objects, shared by every view that holds them: views are replaced, never changed,
 * and these are frozen so that a change would fail loudly instead of changing every session.
 */
const NO_TOKENS: SessionView['tokens'] = Object.freeze({ input: 0, output: 0 });
const IDLE: SessionStatusView = Object.freeze({ status: 'idle' as const, since: 0 });

/**
 * The view again, made from the parsed wire object itself: the defaults are added to it in place
 * (the page parsed it for this and keeps no other reference), which for 10,000 sessions costs
 * half of copying each into a new object.
 */
export function sessionFromWire(w: SessionWire): SessionView {
  w.stateVersion ??= 0;
  w.runStatus ??= 'none';
  w.pendingNotices ??= 0;
  w.alert ??= null;
  w.goal ??= null;
  w.tokens ??= NO_TOKENS;
  w.status ??= IDLE;
  return w as SessionView;
}

export function fleetToWire(snapshot: {
  agents: AgentView[];
  sessions: SessionView[];
  generatedAt: number;
}): FleetWire {
  return {
    agents: snapshot.agents,
    sessions: snapshot.sessions.map(sessionToWire),
    generatedAt: snapshot.generatedAt,
  };
}
