// Search across sessions: labels, keys and transcript text, grouped by session (issue 17.5).
import { create } from 'zustand';
import type { SearchResult } from '../../../shared/ipc';
import { call } from '../lib/api';

interface SearchState {
  query: string;
  result: SearchResult | null;
  loading: boolean;
  setQuery(query: string): void;
  /** Runs the current query; an older answer arriving late never replaces a newer one. */
  run(): Promise<void>;
  reset(): void;
}

const initial = { query: '', result: null as SearchResult | null, loading: false };

let generation = 0;

export const useSearch = create<SearchState>()((set, get) => ({
  ...initial,
  setQuery: (query) => set({ query }),
  async run() {
    const query = get().query.trim();
    const gen = ++generation;
    if (!query) return set({ result: null, loading: false });
    set({ loading: true });
    try {
      const result = await call('search:query', { query });
      if (gen === generation) set({ result });
    } finally {
      if (gen === generation) set({ loading: false });
    }
  },
  reset: () => {
    generation++;
    set(initial);
  },
}));
