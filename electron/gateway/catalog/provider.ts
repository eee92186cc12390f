// The seam between the catalog and one tool. A provider module (one folder: claude/, codex/,
// opencode/, pi/) knows everything about its tool: where it keeps sessions, how to list and find
// them, which rows are a person's, how to read what was added since a marker, what adoption
// imports, and how to continue a session from its CLI. It works only on the file system and the
// small SQLite query interface it is handed (kit/sqlite.ts), never on the gateway's database,
// links or signal log: the same module can serve a remote machine's catalog from a headless node.
import type { CatalogEntry, CatalogProvider, MessageRole, ToolCallRecord } from '../types';
import type { CatalogFs } from './kit/fsio';
import type { SqliteOpener } from './kit/sqlite';

/** Where a session's transcript lives. `kind` tells the provider which of its shapes it is. */
export interface SourceRef {
  kind: string;
  [field: string]: string;
}

/** A catalog entry as a provider finds it: the catalog adds the host and the adopted flag. */
export type ProviderEntry = Omit<CatalogEntry, 'hostId' | 'hostName' | 'remote' | 'adopted'>;

export interface Located {
  entry: ProviderEntry;
  ref: SourceRef;
}

/**
 * How far a link has read, as the four values a link row stores. JSONL tools use the byte
 * offset and inode (plus a pending oversized row in `scanState` and small extra state in
 * `markerJson`); OpenCode keeps its last message in `markerJson`. Plain JSON either way, so a
 * marker travels to a remote node and back unchanged.
 */
export interface MarkerFields {
  offset: number;
  inode: string | null;
  markerJson: string | null;
  scanState: string | null;
}

/** A message as the transcript view shows it (tool calls in its short form). */
export interface VisibleMessage {
  role: MessageRole;
  actorType: 'human' | 'agent' | 'system';
  text: string;
  toolCalls?: ToolCallRecord[];
  createdAt?: number;
  /** A user message whose text Sightline itself sent (self-echo): already in the transcript. */
  own?: true;
}

export interface ProbeContext {
  /** Text keys (kit/text.ts) of the session's recent own texts. */
  ownTexts: { has(key: string): boolean };
  now: number;
  /** Also map the rows read to visible messages (`messages` of the outcome). */
  visible?: boolean;
}

export type ProbeOutcome =
  | { kind: 'missing' }
  | { kind: 'inconclusive'; error: unknown }
  | { kind: 'rebaseline'; marker: MarkerFields; reason: string }
  | {
      kind: 'activity';
      turns: number;
      marker: MarkerFields;
      /** The marker moved (or its stored form changed): save it. */
      changed: boolean;
      /** The marker before this check, as a stable string (part of the dedupe key). */
      from: string;
      occurredAt?: number;
      /** With `visible`: the messages of exactly the rows this check consumed, in order. */
      messages?: VisibleMessage[];
    };

export interface ContinueCommand {
  command: string;
  args: string[];
}

/** One provider over one root. Every method may throw; the catalog treats that per method. */
export interface ProviderSource {
  /** Cheap enumeration of units of work (transcript files, or one database). */
  units(): string[];
  /** The sessions in one unit, from head/tail windows only. */
  describe(unit: string): Located[];
  /**
   * A fingerprint of a unit that changes whenever describe(unit) may answer differently (its
   * size, modification time and inode, and the provider's format version): the catalog index
   * keeps describe's answer while it is the same. Absent: the unit is described at every listing.
   */
  stamp?(unit: string): string;
  /** One thread for adoption (may throw an error that says why it cannot be adopted). */
  find(threadId: string): Located | undefined;
  /** The marker at the current end of the source (adoption). */
  baseline(ref: SourceRef): MarkerFields;
  /** One check: what was added since `marker`, bounded, classified. */
  probe(ref: SourceRef, marker: MarkerFields, ctx: ProbeContext): ProbeOutcome;
  /** The newest visible messages (at most `limit`, oldest first): what adoption imports. */
  readTail(ref: SourceRef, limit: number): VisibleMessage[];
  /** The CLI that sends `text` into the session; absent when the tool has none. */
  continueCommand?(threadId: string, text: string): ContinueCommand;
  /**
   * The files whose changes may mean news for a session (default: a `file` ref's path): the
   * catalog watches them for events between checks.
   */
  watchPaths?(ref: SourceRef): string[];
  /** End of one check over this provider's links (close per-check connections). */
  endCheck?(): void;
}

/** What a provider needs from its host: a file system and a read-only SQLite opener. */
export interface ProviderIo {
  fs: CatalogFs;
  sqlite: SqliteOpener;
}

export interface ProviderModule {
  id: CatalogProvider;
  /** The tool's name for people ("Claude Code"). */
  label: string;
  /**
   * The shape of this tool's session ids. Ids come from file names and transcript rows, so they
   * are data from outside: one that does not match is never listed, adopted or handed to the CLI.
   */
  threadId: RegExp;
  /** Where the tool keeps its sessions, with its own environment overrides. */
  defaultRoot(env: NodeJS.ProcessEnv, home: string): string;
  /** Folders beside the root that the provider also reads (a node serves nothing else). */
  extraRoots?(root: string): string[];
  open(root: string, io: ProviderIo): ProviderSource;
}

/** A lower-case or upper-case UUID, as Claude Code, Codex and Pi name their sessions. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A text that starts with '-' must not be read as an option of the CLI. */
export function cliText(text: string): string[] {
  return text.startsWith('-') ? ['--', text] : [text];
}
