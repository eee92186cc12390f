// A logger that collects lines instead of printing them.
import type { Logger } from '../../electron/gateway/types';

export interface LogLine {
  level: 'info' | 'warn' | 'error';
  msg: string;
  fields?: Record<string, unknown>;
}

export function collectingLogger(lines: LogLine[] = []): Logger & { lines: LogLine[] } {
  return {
    lines,
    info: (msg, fields) => void lines.push({ level: 'info', msg, ...(fields ? { fields } : {}) }),
    warn: (msg, fields) => void lines.push({ level: 'warn', msg, ...(fields ? { fields } : {}) }),
    error: (msg, fields) => void lines.push({ level: 'error', msg, ...(fields ? { fields } : {}) }),
  };
}

/** A logger that drops every line: for workers and benchmarks whose logs nobody reads. */
export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
