// What the person reads is what is there (issue 29.7): a label, folder, command or title shown
// with its control, bidirectional-override and invisible characters made visible. A U+202E
// (right-to-left override) would show `txt.exe` as `exe.txt`; a newline in a recorded folder
// could forge a second "Folder:" line in a consent question. Every such character is written as
// its escape (`\u202E`), a line break as `⏎`. One function for the page, notifications and the
// native consent dialog.

/**
 * C0 and C1 controls, DEL, the bidirectional marks, embeddings, overrides and isolates, zero-width
 * characters, the line and paragraph separators, the byte-order mark and interlinear annotations.
 */
const HIDDEN = new RegExp(
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  '[\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u180e\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u2069\\ufeff\\ufff9-\\ufffb]',
  'g',
);

const hex = (ch: string) => `\\u${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;

export function visible(text: string): string {
  return text.replace(/\r\n/g, '⏎').replace(HIDDEN, (ch) => (ch === '\n' || ch === '\r' ? '⏎' : hex(ch)));
}

/** Whether `text` holds anything visible() would rewrite. */
export function hasHidden(text: string): boolean {
  HIDDEN.lastIndex = 0;
  const found = HIDDEN.test(text);
  HIDDEN.lastIndex = 0;
  return found;
}
