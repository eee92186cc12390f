// A gateway a team shares (`npm run serve`): the wire over TLS between a client (browser mode
// with --connect, a script, a test) and the serve gateway. After the WebSocket opens and the
// client has checked the server's certificate against its pin, its first frame is `hello` (a
// credential) or `redeem` (a one-time invitation); until then nothing else is answered. Then the
// frames are browser mode's (WireRequest / WireMessage), plus the account channels below.
import type { Envelope } from './contract';
import type { PushBatch } from './types';

export interface AccountView {
  /** The actor id of this person's turns: `user:<name>`. */
  id: string;
  name: string;
  role: 'owner' | 'member';
  createdAt: number;
  revokedAt?: number;
}

export interface AuditEntryView {
  id: number;
  at: number;
  accountId: string;
  /** adopt | start | send | delete | consent | invite | revoke */
  action: string;
  /** Usually a session key; the account for invite/revoke. */
  target?: string;
  detail?: string;
}

export type ServeClientFrame =
  | { type: 'hello'; credential: string }
  | { type: 'redeem'; code: string; name: string }
  | { id: number; channel: string; args?: unknown };

export type ServeServerFrame =
  | { type: 'welcome'; account: AccountView }
  | { type: 'redeemed'; account: AccountView; credential: string }
  | { type: 'result'; id: number; result: Envelope<unknown> }
  | { type: 'push'; batch: PushBatch };

/** The account channels, answered by the serve gateway only (owner-only: invite, revoke). */
export interface AccountResultMap {
  'accounts:me': AccountView;
  'accounts:list': AccountView[];
  'accounts:invite': { code: string; role: 'owner' | 'member'; expiresAt: number };
  'accounts:revoke': { revoked: boolean };
  'audit:list': AuditEntryView[];
}
export type AccountChannel = keyof AccountResultMap;
/** Answered by the serve gateway itself; in the contract's channel list (channels.ts) too. */
export const ACCOUNT_CHANNELS: readonly AccountChannel[] = [
  'accounts:me',
  'accounts:list',
  'accounts:invite',
  'accounts:revoke',
  'audit:list',
];

/** Close codes and reasons a serve client sees (WebSocket private range 4000-4999). */
export const SERVE_CLOSE = {
  unauthorized: { code: 4001, reason: 'unauthorized: unknown or revoked credential' },
  revoked: { code: 4003, reason: 'credential revoked' },
  slow: { code: 4008, reason: 'too slow: send queue full' },
  helloTimeout: { code: 4002, reason: 'no hello within 10 s' },
} as const;
