// Claude Code: which `type:"user"` rows a person produced (spec; reference §1.4). Typed prompts,
// slash commands (<command-name>), `!` shell input (<bash-input>) and interrupts count; output
// rows, meta/caveat rows, compaction summaries, tool results, sidechains and task notifications
// never do. Claude Code 2.1.332 marks what it did not take from the keyboard on the user row itself
// (`rowSource`, `turnOrigin`, `textNotTyped`, `isVirtual`, `wakeupSource`, …): those flags decide as
// its own "typed text" reader does; `attachment`, `last-prompt` and `system` rows (retries
// included) are never user rows.
import {
  contentText,
  isoTime,
  message,
  obj,
  pathIs,
  reply,
  str,
  type Row,
  type RowRules,
} from '../kit/rules';

const NOT_HUMAN_PREFIXES = [
  '<local-command-stdout>',
  '<local-command-stderr>',
  '<bash-stdout>',
  '<bash-stderr>',
  '<local-command-caveat>',
  'This session is being continued from a previous conversation that ran out of context',
];

/** Turns Claude Code started itself (its own set of non-human `turnOrigin` values, 2.1.332). */
const HARNESS_TURN_ORIGINS = new Set([
  'scheduled',
  'task_notification',
  'auto_continuation',
  'peer',
  'host_synthetic',
  'system',
]);
/** Rows written by the harness, a hook or a recording; `local` is the terminal's own row. */
const NOT_TYPED_ROW_SOURCES = new Set(['harness', 'hook', 'recorded']);
/** Flags Claude Code sets on a user row whose text nobody typed (a rewrite, a connector, a wake-up). */
const NOT_TYPED_FLAGS = [
  'textNotTyped',
  'isVirtual',
  'promptRewritten',
  'fromConnector',
  'queueSkipAttachments',
];

function typedByHarness(row: Row): boolean {
  if (row.promptSource === 'system') return true;
  if (typeof row.turnOrigin === 'string' && HARNESS_TURN_ORIGINS.has(row.turnOrigin)) return true;
  if (typeof row.rowSource === 'string' && NOT_TYPED_ROW_SOURCES.has(row.rowSource)) return true;
  if (row.wakeupSource !== undefined && row.wakeupSource !== null) return true;
  return NOT_TYPED_FLAGS.some((f) => row[f] === true);
}

export function claudeIsUserRow(row: Row): boolean {
  return row.type === 'user' && obj(row.message)?.role === 'user';
}

export const claudeRules: RowRules = {
  human(row) {
    if (!claudeIsUserRow(row)) return false;
    if (row.isSidechain === true || row.isMeta === true) return false;
    if (row.isCompactSummary === true || row.isVisibleInTranscriptOnly === true) return false;
    // Scheduled wake-ups, task notifications, hook and harness rows are written by Claude Code.
    if (typedByHarness(row)) return false;
    const content = obj(row.message)?.content;
    if (Array.isArray(content) && content.some((b) => obj(b)?.type === 'tool_result')) return false;
    const text = contentText(content);
    if (text === undefined || text.trim() === '') return false;
    const t = text.trimStart();
    if (NOT_HUMAN_PREFIXES.some((p) => t.startsWith(p))) return false;
    if (
      t.startsWith('<task-notification>') &&
      (obj(row.origin)?.kind === 'task-notification' || row.isMeta === true)
    )
      return false;
    return true;
  },
  // `queue-operation` `remove`: text the person typed while the agent was busy, handed to the
  // agent as steering (enqueue/dequeue only duplicate text that later becomes a user row).
  steering(row) {
    if (row.type !== 'queue-operation' || row.operation !== 'remove') return false;
    const t = str(row.content);
    return t !== undefined && t.trim() !== '';
  },
  text(row) {
    if (row.type === 'queue-operation') return str(row.content);
    return contentText(obj(row.message)?.content);
  },
  time(row) {
    return isoTime(row.timestamp);
  },
  visible(row) {
    if (claudeRules.human(row)) return message('user', claudeRules.text(row), claudeRules.time(row));
    if (row.type !== 'assistant' || row.isSidechain === true) return undefined;
    return reply(obj(row.message)?.content, claudeRules.time(row), 'tool_use', 'input');
  },
  scan: {
    capture(p) {
      if (p.length === 1)
        return [
          'type',
          'isSidechain',
          'isMeta',
          'isCompactSummary',
          'isVisibleInTranscriptOnly',
          'promptSource',
          'turnOrigin',
          'rowSource',
          'wakeupSource',
          ...NOT_TYPED_FLAGS,
          'timestamp',
          'operation',
          'content',
        ].includes(String(p[0]));
      return (
        pathIs(p, 'origin', 'kind') ||
        pathIs(p, 'message', 'role') ||
        pathIs(p, 'message', 'content') ||
        pathIs(p, 'message', 'content', '#', 'type') ||
        pathIs(p, 'message', 'content', '#', 'text')
      );
    },
    text(p) {
      return (
        pathIs(p, 'message', 'content') ||
        pathIs(p, 'message', 'content', '#', 'text') ||
        pathIs(p, 'content')
      );
    },
  },
};

export function claudeTitleText(row: Row): string | undefined {
  const t = str(claudeRules.text(row));
  if (!t) return undefined;
  const cmd = /<command-name>([^<]*)<\/command-name>/.exec(t);
  if (cmd) {
    const args = /<command-args>([^<]*)<\/command-args>/.exec(t);
    return `${cmd[1]!.trim()} ${args?.[1]?.trim() ?? ''}`.trim();
  }
  return t;
}
