// The catalog of upstream tools' sessions on this machine and on paired nodes.
// Declarations only; shared/ipc/types.ts re-exports every domain file.

export const CATALOG_PROVIDERS = ['claude', 'codex', 'opencode', 'pi'] as const;
export type CatalogProvider = (typeof CATALOG_PROVIDERS)[number];

export interface CatalogEntry {
  provider: CatalogProvider;
  threadId: string;
  title: string;
  cwd?: string;
  createdAt?: number;
  lastActivityAt?: number;
  sizeBytes: number;
  adopted?: boolean;
  /** The machine it is on: this one's host id, or a paired node's id (issue 19). */
  hostId: string;
  /** That machine's name for people. */
  hostName: string;
  /** On a paired node, not this machine. */
  remote: boolean;
}

/** Where the catalog looks for one tool's sessions, and how to move it. */
export interface CatalogRootView {
  provider: CatalogProvider;
  path: string;
  exists: boolean;
  /** The environment variable(s) that move this root, set before Sightline starts. */
  env: string;
}
