// Search across sessions.
// Declarations only; shared/ipc/types.ts re-exports every domain file.
import type { MessageRole } from './sessions';

/** Marks around each matched term in a search line (control characters never shown as such). */
export const SEARCH_MARK = { start: '\u0002', end: '\u0003' } as const;

export type SearchField = 'label' | 'key' | 'message';

export interface SearchMatch {
  field: SearchField;
  /** The matching line, matched terms between SEARCH_MARK.start and SEARCH_MARK.end. */
  line: string;
  /** Message matches: which message, its role and time. */
  messageId?: number;
  role?: MessageRole;
  createdAt?: number;
}

/** Search results of one session. */
export interface SearchGroup {
  sessionKey: string;
  label?: string;
  matches: SearchMatch[];
  /** Further message matches in this session that are not listed. */
  more: number;
}

export interface SearchResult {
  query: string;
  groups: SearchGroup[];
  /** More messages matched than were looked at (the best ones are shown). */
  truncated: boolean;
}
