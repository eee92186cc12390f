// The short explanations shown on hover (and in "How Sightline works"), in the spec's words,
// written once so the chips, the watchers panel, the inbox and the guide say the same thing.

export const EXPLAIN = {
  position:
    'A position (#) in Sightline’s signal log, which all sessions share: it counts every session’s events, ' +
    'so it is not a count of this session’s changes. Notices and session_status name these positions (changesSince).',
  lastSeen:
    'L, last seen: how far into the target session the watcher has caught up. It moves when the watcher’s turn reads (drains) the notice.',
  notified:
    'N, notified: the frozen position named by the pending notice. Later changes raise M but never re-notify.',
  material:
    'M, material: the newest event of the target that watchers are told about (human step-ins, goal changes, upstream loss). A notice is pending while M > L.',
  head: 'Head: the target session’s current state version (including log-only events such as runs ending).',
  notice:
    'A notice: one line queued for the watcher’s next turn. It names the changed session and the version to reconcile from; ' +
    'the watcher calls session_status with changesSince to read exactly what changed, before it acts.',
  pendingNotices: (n: number) =>
    `${n} notice${n === 1 ? '' : 's'} queued for this session as a watcher; its next turn reads ${n === 1 ? 'it' : 'them'} and reconciles.`,
  upstream:
    'The session this was adopted from (in Claude Code, Codex, OpenCode or Pi) is gone; its upstream link was removed.',
} as const;
