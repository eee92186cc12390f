// An agent that could not be started, apart from child.ts so that checking for one does not load
// the ACP SDK: the SDK loads with the first agent started (issue 31.3, a lighter gateway).
export class AcpStartError extends Error {
  constructor(
    readonly reason: string,
    readonly stderrTail: string,
  ) {
    super(`ACP agent failed to start: ${reason}`);
    this.name = 'AcpStartError';
  }
}
