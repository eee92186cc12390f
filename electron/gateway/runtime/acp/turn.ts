import type { AcpPermissionDecision, AcpRunResult } from './types';

export interface PromptJob {
  /** The prompt's text blocks, in order (a system note, then the message). */
  blocks: string[];
  timeoutMs: number | undefined;
  resolve: (result: AcpRunResult) => void;
}

/**
 * The state of the one running prompt: it settles exactly once, from whichever comes first of
 * the agent's answer, a fatal child event, the timeout or an unacknowledged cancel.
 */
export class Turn {
  readonly done: Promise<void>;
  /** Resolves 'cancelled' when the turn is cancelled or ends, to release pending permission questions. */
  readonly permissionAbort: Promise<AcpPermissionDecision>;
  private cancelled = false;
  private settled = false;
  private releaseDone: () => void = () => undefined;
  private releasePermissions: () => void = () => undefined;
  private timer: NodeJS.Timeout | undefined;
  private cancelTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly job: PromptJob,
    private readonly cancelGraceMs: number,
    /** Stops the child: after a timeout or an ignored cancel, its state is unknown. */
    private readonly stopChild: (reason: string) => void,
  ) {
    this.done = new Promise((resolve) => (this.releaseDone = resolve));
    this.permissionAbort = new Promise(
      (resolve) => (this.releasePermissions = () => resolve({ outcome: 'cancelled' })),
    );
    const { timeoutMs } = job;
    if (timeoutMs !== undefined) {
      this.timer = setTimeout(() => {
        this.finish({ outcome: 'timeout', reason: `prompt exceeded ${timeoutMs} ms; the agent was stopped` });
        this.stopChild(`the agent was stopped after a prompt exceeded ${timeoutMs} ms`);
      }, timeoutMs);
    }
  }

  /** Returns false when the turn was already cancelled or over, so cancel is sent only once. */
  markCancelled(): boolean {
    if (this.cancelled || this.settled) return false;
    this.cancelled = true;
    this.releasePermissions(); // the protocol requires pending permission requests to answer 'cancelled'
    this.cancelTimer = setTimeout(() => {
      const reason = `the agent did not acknowledge the cancel within ${this.cancelGraceMs} ms and was stopped`;
      this.finish({ outcome: 'cancelled', reason });
      this.stopChild(reason);
    }, this.cancelGraceMs);
    return true;
  }

  /** The agent answered session/prompt. */
  stopped(stopReason: string): void {
    if (stopReason === 'cancelled') this.finish({ outcome: 'cancelled', stopReason });
    else if (stopReason === 'refusal') {
      this.finish({
        outcome: 'error',
        stopReason,
        reason: 'the agent refused the prompt (stop reason: refusal)',
      });
    } else this.finish({ outcome: 'completed', stopReason });
  }

  /** session/prompt failed. Some agents answer a cancel with an error instead of the stop reason. */
  errored(reason: string, isProtocolError: boolean): void {
    if (this.cancelled && isProtocolError) this.finish({ outcome: 'cancelled', reason });
    else this.finish({ outcome: 'error', reason });
  }

  finish(result: AcpRunResult): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    clearTimeout(this.cancelTimer);
    this.releasePermissions();
    this.job.resolve(result);
    this.releaseDone();
  }
}
