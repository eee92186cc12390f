// How Sightline's own lines (drained notices, a child's announcement) reach an agent that Sightline
// does not prompt through its system prompt: an ACP agent's prompt, or the head of an outside
// agent's tool result. Marked plainly, so neither the agent nor a reader takes them for the
// person's words; the lines themselves stay byte-stable (a notice names its exact changesSince).
export const SYSTEM_NOTE_OPEN = '[Sightline system note: from Sightline, not from the person]';
export const SYSTEM_NOTE_CLOSE = '[End of Sightline system note]';

export function systemNote(lines: readonly string[]): string {
  return [SYSTEM_NOTE_OPEN, ...lines, SYSTEM_NOTE_CLOSE].join('\n');
}
