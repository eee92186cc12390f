// What every provider module offers the catalog: cheap enumeration of units of work (transcript
// files, or one database), a description of each unit from head/tail windows only, and a direct
// lookup of one thread for adoption.
import type { CatalogEntry, CatalogProvider } from '../types';

export type SourceRef =
  | { kind: 'file'; path: string }
  | { kind: 'opencode-db'; db: string; sessionId: string }
  | { kind: 'opencode-json'; dataDir: string; projectId: string; sessionId: string };

export interface Located {
  entry: CatalogEntry;
  ref: SourceRef;
}

export interface ProviderCatalog {
  provider: CatalogProvider;
  units(): string[];
  describe(unit: string): Located[];
  find(threadId: string): Located | undefined;
}
