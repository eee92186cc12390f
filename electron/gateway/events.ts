// The gateway's push events: services emit, transports (IPC, WebSocket) and tests listen. An event
// emitted inside a transaction goes out after its commit (dropped on rollback), so a listener
// never sees a change that is not in the database.
import type { Transactions } from './db/transactions';
import type { GatewayEvent, GatewayEvents, Logger } from './types';

export class EventHub implements GatewayEvents {
  private readonly listeners = new Set<(event: GatewayEvent) => void>();

  constructor(
    private readonly logger: Logger,
    private readonly tx?: Pick<Transactions, 'active' | 'afterCommit'>,
  ) {}

  on(listener: (event: GatewayEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit = (event: GatewayEvent): void => {
    if (this.tx?.active) this.tx.afterCommit(() => this.deliver(event));
    else this.deliver(event);
  };

  private readonly queue: GatewayEvent[] = [];
  private delivering = false;

  /** An event a listener emits waits until the one in hand reached every listener: all of them
   * see events in the same order (a session's status never arrives before the session). */
  private deliver(event: GatewayEvent): void {
    this.queue.push(event);
    if (this.delivering) return;
    this.delivering = true;
    try {
      for (let next = this.queue.shift(); next; next = this.queue.shift()) {
        for (const l of this.listeners) {
          try {
            l(next);
          } catch (err) {
            // A failing listener must never fail the action that emitted the event.
            this.logger.warn('events: listener failed', { type: next.type, error: String(err) });
          }
        }
      }
    } finally {
      this.delivering = false;
    }
  }
}

export const consoleLogger: Logger = {
  info: (msg, fields) => console.info(`[sightline] ${msg}`, fields ?? ''),
  warn: (msg, fields) => console.warn(`[sightline] ${msg}`, fields ?? ''),
  error: (msg, fields) => console.error(`[sightline] ${msg}`, fields ?? ''),
};
