// Settings → MCP: the credentials that let agents act as sessions through Sightline's MCP
// endpoint. A freshly issued secret lives here until the person dismisses it, and nowhere else.
import { create } from 'zustand';
import type { ArgsOf, McpIssuedView, McpView } from '../../../shared/ipc';
import { call } from '../lib/api';

interface McpState {
  loaded: boolean;
  view: McpView;
  /** The credential just issued, with its secret: shown once. */
  issued: McpIssuedView | null;
  load(): Promise<void>;
  issue(input: ArgsOf<'mcp:issue'>): Promise<McpIssuedView>;
  revoke(id: string): Promise<boolean>;
  dismissIssued(): void;
  reset(): void;
}

const initial = { loaded: false, view: { credentials: [] } as McpView, issued: null };

export const useMcp = create<McpState>()((set, get) => ({
  ...initial,
  async load() {
    set({ view: await call('mcp:list', {}), loaded: true });
  },
  async issue(input) {
    const issued = await call('mcp:issue', input);
    set({ issued });
    await get().load();
    return issued;
  },
  async revoke(id) {
    const { revoked } = await call('mcp:revoke', { id });
    await get().load();
    return revoked;
  },
  dismissIssued: () => set({ issued: null }),
  reset: () => set(initial),
}));
