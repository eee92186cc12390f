// What the gateway keeps for the person themself: which inbox items they put away, their UI
// preferences, and when they last opened each session. Each store owns its table; the API handlers get them built.
import type { Db } from '../db/open';
import { createDismissalStore, type DismissalStore } from './dismissals';
import { createPreferenceStore, type PreferenceStore } from './preferences';
import { createSeenStore, type SeenStore } from './seen';

export type { DismissalStore, PreferenceStore, SeenStore };

export interface PersonStores {
  dismissals: DismissalStore;
  preferences: PreferenceStore;
  seen: SeenStore;
}

export function createPersonStores(db: Db): PersonStores {
  return {
    dismissals: createDismissalStore(db),
    preferences: createPreferenceStore(db),
    seen: createSeenStore(db),
  };
}
