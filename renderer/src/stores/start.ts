// The New session dialog: whether it is open, what it starts with, and starting the session.
import { create } from 'zustand';
import type { ArgsOf, FolderCheck, SessionView } from '../../../shared/ipc';
import { call } from '../lib/api';

interface StartState {
  open: boolean;
  /** A parent chosen by whoever opened the dialog: none by default (nobody watches unless the person picks). */
  parentKey: string | null;
  show(parentKey?: string | null): void;
  hide(): void;
  /** The folder checked on this machine, or on the paired node `node` (issue 30.1). */
  check(path: string, node?: string): Promise<FolderCheck>;
  pick(): Promise<string | undefined>;
  start(input: ArgsOf<'sessions:start'>): Promise<SessionView>;
  reset(): void;
}

const initial = { open: false, parentKey: null as string | null };

export const useStart = create<StartState>()((set) => ({
  ...initial,
  show: (parentKey = null) => set({ open: true, parentKey }),
  hide: () => set({ open: false }),
  check: (path, node) => call('folders:check', { path, ...(node ? { node } : {}) }),
  pick: async () => (await call('folders:pick', {})).path,
  start: (input) => call('sessions:start', input),
  reset: () => set(initial),
}));
