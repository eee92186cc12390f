import { flatKeys, buildTree } from '../fleet/tree';
import { needsAttention, useFleet } from '../../stores/fleet';
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

/** The next session (in sidebar order, after the open one) that needs attention. */
export function nextNeedingAttention(): string | undefined {
  const { agents, sessions } = useFleet.getState();
  const keys = flatKeys(buildTree(agents, Object.values(sessions), ''));
  const current = useUi.getState().selectedKey;
  const start = current ? keys.indexOf(current) : -1;
  for (let i = 1; i <= keys.length; i++) {
    const key = keys[(start + i + keys.length) % keys.length]!;
    const s = sessions[key];
    if (s && needsAttention(s)) return key;
  }
  return undefined;
}

export function stepSession(delta: 1 | -1): string | undefined {
  const { agents, sessions, filter } = useFleet.getState();
  const keys = flatKeys(buildTree(agents, Object.values(sessions), filter));
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
      run: () => useStart.getState().show(ui.selectedKey),
    },
    { id: 'inbox', label: 'Go to Inbox', hint: 'i', run: () => ui.setView('inbox') },
    { id: 'search', label: 'Search sessions and transcripts', hint: 'f', run: () => ui.setView('search') },
    { id: 'catalog', label: 'Go to Catalog', hint: 'c', run: () => ui.setView('catalog') },
    { id: 'settings', label: 'Go to Settings', hint: 's', run: () => ui.setView('settings') },
    {
      id: 'attention',
      label: 'Next session needing attention',
      hint: 'n',
      run: () => {
        const k = nextNeedingAttention();
        if (k) ui.openSession(k);
      },
    },
    { id: 'tab-transcript', label: 'Show transcript', hint: '1', run: () => ui.setTab('transcript') },
    { id: 'tab-timeline', label: 'Show signal log', hint: '2', run: () => ui.setTab('timeline') },
    { id: 'tab-watchers', label: 'Show watchers', hint: '3', run: () => ui.setTab('watchers') },
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
