// What the gateway keeps for the person themself (not for a session): which inbox items they put
// away and their UI preferences. Each store owns its table; the API handlers get them built.
import type { Db } from '../db/open';
import { createDismissalStore, type DismissalStore } from './dismissals';
import { createPreferenceStore, type PreferenceStore } from './preferences';

export type { DismissalStore, PreferenceStore };

export interface PersonStores {
  dismissals: DismissalStore;
  preferences: PreferenceStore;
}

export function createPersonStores(db: Db): PersonStores {
  return { dismissals: createDismissalStore(db), preferences: createPreferenceStore(db) };
}
