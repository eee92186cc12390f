import { flatKeys, buildTree } from '../fleet/tree';
import { useFleetView } from '../../stores/fleet-view';
import { useFleet } from '../../stores/fleet';
import { useInbox } from '../../stores/inbox';
import { usePermissions } from '../../stores/permissions';
import { useStart } from '../../stores/start';
import { useUi } from '../../stores/ui';
import { sessionTitle } from '../../lib/format';
import { call, errorMessage } from '../../lib/api';
import { toggleTheme } from '../../components/ThemeToggle';

export interface Command {
  id: string;
  label: string;
  hint?: string;
  run(): void;
}

/** The sessions of what needs the person, in Inbox order (permission requests first), once each. */
export function needingYou(): string[] {
  const keys = [
    ...usePermissions.getState().requests.map((r) => r.sessionKey),
    ...useInbox.getState().items.map((i) => i.sessionKey),
  ];
  return [...new Set(keys)];
}

/** `n`: the next item that needs the person after the open session, or says that nothing does. */
export function goToNextNeedingYou(): string | undefined {
  const ui = useUi.getState();
  const keys = needingYou();
  if (keys.length === 0) {
    ui.flash('Nothing needs you right now.');
    return undefined;
  }
  const i = ui.selectedKey ? keys.indexOf(ui.selectedKey) : -1;
  const key = keys[(i + 1) % keys.length]!;
  ui.openSession(key, 'transcript');
  return key;
}

export function stepSession(delta: 1 | -1): string | undefined {
  const { agents, sessions, filter, showArchived } = useFleet.getState();
  const { status, tool, sort, group } = useFleetView.getState();
  // j/k walk the rows as the fleet shows them (filters, sort and grouping included).
  const keys = flatKeys(
    buildTree(agents, Object.values(sessions), { filter, showArchived, status, tool, sort, group }),
  );
  if (!keys.length) return undefined;
  const current = useUi.getState().selectedKey;
  const i = current ? keys.indexOf(current) : -1;
  return keys[i < 0 ? 0 : Math.min(keys.length - 1, Math.max(0, i + delta))];
}

export function startDemo(): void {
  const ui = useUi.getState();
  useFleet
    .getState()
    .startDemo()
    .then(
      (demo) => ui.openSession(demo.coordinatorKey, 'transcript'),
      (err: unknown) => ui.setError(errorMessage(err)),
    );
}

/** Deletes the demo's sessions and starts it again (after the person confirmed). */
export function resetDemo(): void {
  const ui = useUi.getState();
  if (!window.confirm('Reset the demo? Its coordinator and workers are deleted and a fresh demo starts.'))
    return;
  useFleet.setState({ demoStarting: true });
  call('demo:reset', {})
    .then(async (demo) => {
      await useFleet.getState().load();
      ui.openSession(demo.coordinatorKey, 'transcript');
    })
    .catch((err: unknown) => ui.setError(errorMessage(err)))
    .finally(() => useFleet.setState({ demoStarting: false }));
}

export function buildCommands(): Command[] {
  const ui = useUi.getState();
  const { sessions } = useFleet.getState();
  const cmds: Command[] = [
    {
      id: 'new-session',
      label: 'New session…',
      hint: '⇧N',
      run: () => useStart.getState().show(),
    },
    { id: 'inbox', label: 'Go to Inbox', hint: 'i', run: () => ui.setView('inbox') },
    { id: 'search', label: 'Search sessions and transcripts', hint: 'f', run: () => ui.setView('search') },
    { id: 'catalog', label: 'Go to Catalog', hint: 'c', run: () => ui.setView('catalog') },
    { id: 'settings', label: 'Go to Settings', hint: 's', run: () => ui.setView('settings') },
    { id: 'attention', label: 'Next item that needs you', hint: 'n', run: () => void goToNextNeedingYou() },
    { id: 'tab-transcript', label: 'Show transcript', hint: '1', run: () => ui.setTab('transcript') },
    { id: 'tab-timeline', label: 'Show signal log', hint: '2', run: () => ui.setTab('timeline') },
    { id: 'tab-watchers', label: 'Show watchers', hint: '3', run: () => ui.setTab('watchers') },
    { id: 'tab-changes', label: 'Show changes (worktree)', hint: '4', run: () => ui.setTab('changes') },
    { id: 'demo', label: 'Start demo fleet', run: startDemo },
    { id: 'demo-reset', label: 'Reset the demo fleet', run: resetDemo },
    { id: 'theme', label: 'Toggle dark theme', run: toggleTheme },
    { id: 'guide', label: 'How Sightline works', hint: '?', run: () => ui.setView('guide') },
  ];
  for (const s of Object.values(sessions)) {
    cmds.push({
      id: `open:${s.key}`,
      label: `Open ${sessionTitle(s)}`,
      hint: s.key,
      run: () => ui.openSession(s.key),
    });
  }
  return cmds;
}
