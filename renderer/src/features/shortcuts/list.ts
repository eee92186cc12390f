// Every keyboard shortcut in words, for the `?` page (Guide). keyboard.ts acts on the same keys;
// test/e2e/keyboard.test.ts presses each of them.
export interface Shortcut {
  keys: string[];
  action: string;
}

export const SHORTCUTS: Shortcut[] = [
  { keys: ['Ctrl K', '⌘K'], action: 'Open the command palette' },
  { keys: ['⇧N'], action: 'Start a new session' },
  { keys: ['n'], action: 'Go to the next session that needs you' },
  { keys: ['j', 'k'], action: 'Next / previous session in the fleet' },
  { keys: ['1'], action: 'Transcript tab of the open session' },
  { keys: ['2'], action: 'Signal log tab' },
  { keys: ['3'], action: 'Watchers tab' },
  { keys: ['m'], action: 'Write a message to the open session' },
  { keys: ['/'], action: 'Filter the fleet' },
  { keys: ['Space'], action: 'Pick the focused fleet row (Ctrl/⌘-click picks with the mouse)' },
  { keys: ['i'], action: 'Inbox' },
  { keys: ['f'], action: 'Search' },
  { keys: ['c'], action: 'Catalog (sessions found on this machine)' },
  { keys: ['s'], action: 'Settings' },
  { keys: ['?'], action: 'This page: how Sightline works and these shortcuts' },
  { keys: ['Esc'], action: 'Leave a text field or close a dialog' },
];
