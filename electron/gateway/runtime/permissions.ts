// Questions that wait for the person and nobody else: an ACP child asking before a tool call, an
// agent asking to send into an adopted upstream session. One inbox for both (the renderer's
// permission banner and inbox items, channels acp:permissions:list / respond); the asker waits
// for the answer, or for its own abort (a cancelled turn, a forgotten session).
import { invalidArgument } from '../errors';
import type { GatewayEvent, PermissionRequestView } from '../types';

export interface PermissionOption {
  optionId: string;
  name: string;
  kind: string;
}

export interface PermissionQuestion {
  id: string;
  sessionKey: string;
  title: string;
  options: PermissionOption[];
  requestedBy?: string;
}

/** The option chosen, or undefined: rejected, withdrawn or the gateway closed. */
export type PermissionAnswer = PermissionOption | undefined;

export type Permissions = ReturnType<typeof createPermissions>;

let counter = 0;
export const nextPermissionId = (prefix: string) => `${prefix}-${++counter}`;

export function createPermissions(deps: { now: () => number; emit: (e: GatewayEvent) => void }) {
  const waiting = new Map<
    string,
    { view: PermissionRequestView; settle: (optionId: string | undefined) => void }
  >();

  const permissions = {
    /**
     * Puts the question to the person. `onAnswer` runs once, before the promise resolves, with the
     * chosen option (undefined for reject/withdraw) and the decision's wording.
     */
    ask(
      q: PermissionQuestion,
      onAnswer?: (answer: PermissionAnswer, decision: string) => void,
    ): Promise<PermissionAnswer> {
      return new Promise((resolve) => {
        const view: PermissionRequestView = {
          id: q.id,
          sessionKey: q.sessionKey,
          title: q.title,
          options: q.options.map((o) => ({ ...o })),
          createdAt: deps.now(),
          ...(q.requestedBy ? { requestedBy: q.requestedBy } : {}),
        };
        waiting.set(q.id, {
          view,
          settle: (optionId) => {
            if (!waiting.delete(q.id)) return;
            const option = q.options.find((o) => o.optionId === optionId);
            const decision = option ? `${option.name} (${option.kind})` : 'rejected';
            onAnswer?.(option, decision);
            deps.emit({
              type: 'acp:permission-resolved',
              requestId: q.id,
              sessionKey: q.sessionKey,
              decision,
            });
            resolve(option);
          },
        });
        deps.emit({ type: 'acp:permission', request: view });
      });
    },

    pending: (): PermissionRequestView[] => [...waiting.values()].map((w) => w.view),

    /** The person's answer; `undefined` rejects. False when the question is gone. */
    respond(requestId: string, optionId: string | undefined): boolean {
      const w = waiting.get(requestId);
      if (!w) return false;
      if (optionId !== undefined && !w.view.options.some((o) => o.optionId === optionId))
        throw invalidArgument(`Unknown permission option: ${optionId}`);
      const reject = w.view.options.find((o) => o.kind === 'reject_once')?.optionId;
      w.settle(optionId ?? reject);
      return true;
    },

    /** The asker no longer waits (its turn ended, its session is gone): answered as rejected. */
    withdraw(requestId: string): void {
      waiting.get(requestId)?.settle(undefined);
    },

    withdrawSession(sessionKey: string): void {
      for (const w of [...waiting.values()]) if (w.view.sessionKey === sessionKey) w.settle(undefined);
    },

    closeAll(): void {
      for (const w of [...waiting.values()]) w.settle(undefined);
    },
  };
  return permissions;
}
