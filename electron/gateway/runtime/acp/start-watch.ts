// While an agent starts (spawn → initialize → session/new) the person waits: its stderr lines go
// out as progress, and a line that says the agent cannot go on ends the wait at once instead of
// after the start budget. Claude Code's adapter is the case in point: as root its CLI prints
// "--dangerously-skip-permissions cannot be used with root/sudo privileges" and exits, while the
// adapter itself keeps running and never answers session/new.
import type { AcpStartStage } from '../../../../shared/ipc/agents';

/** stderr lines that mean the agent will never answer. */
export const FATAL_STDERR: readonly RegExp[] = [/cannot be used with root\/sudo privileges/i];

const MAX_LINE = 400;

export type StartProgress = (p: { stage: AcpStartStage; text: string }) => void;

export class StartWatch {
  private partial = '';
  private done = false;

  constructor(
    private readonly progress: StartProgress | undefined,
    private readonly fatal: (line: string) => void,
  ) {}

  step(stage: AcpStartStage, text: string): void {
    if (!this.done) this.progress?.({ stage, text });
  }

  /** A chunk of stderr while starting: whole lines only; a partial one waits for its end. */
  stderr(chunk: Buffer): void {
    if (this.done) return;
    const lines = (this.partial + chunk.toString('utf8')).split(/\r?\n/);
    this.partial = (lines.pop() ?? '').slice(-MAX_LINE);
    for (const raw of lines) {
      const line = raw.trimEnd().slice(0, MAX_LINE);
      if (!line.trim()) continue;
      this.step('stderr', line);
      if (FATAL_STDERR.some((re) => re.test(line))) this.fatal(line);
    }
  }

  /** The agent answered session/new (or the start failed): no more progress. */
  finish(): void {
    this.done = true;
  }
}
