// Global shortcuts (listed in words in list.ts). Letters act only when focus is not in a text field.
import { useStart } from '../../stores/start';
import { useUi } from '../../stores/ui';
import { goToNextNeedingYou, stepSession } from '../palette/commands';

function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el) return false;
  return (
    el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT' || el.isContentEditable
  );
}

function focusSelectedRow(): void {
  requestAnimationFrame(() =>
    document.querySelector<HTMLElement>('[data-testid="session-row"][aria-selected="true"]')?.focus(),
  );
}

export function onGlobalKey(e: KeyboardEvent): void {
  const ui = useUi.getState();
  if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'k') {
    e.preventDefault();
    ui.setPalette(!ui.paletteOpen);
    return;
  }
  if (ui.paletteOpen || useStart.getState().open || e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) {
    if (e.key === 'Escape' && typing(e.target)) (e.target as HTMLElement).blur();
    return;
  }
  const go = (key: string | undefined) => {
    if (!key) return;
    ui.openSession(key);
    focusSelectedRow();
  };
  switch (e.key) {
    case 'N':
      useStart.getState().show();
      break;
    case 'n':
      if (goToNextNeedingYou()) focusSelectedRow();
      break;
    case 'j':
      go(stepSession(1));
      break;
    case 'k':
      go(stepSession(-1));
      break;
    case '1':
      ui.setTab('transcript');
      break;
    case '2':
      ui.setTab('timeline');
      break;
    case '3':
      ui.setTab('watchers');
      break;
    case '4':
      ui.setTab('changes');
      break;
    case 'i':
      ui.setView('inbox');
      break;
    case '?':
      ui.setView('guide');
      requestAnimationFrame(() => document.getElementById('shortcuts')?.scrollIntoView({ block: 'start' }));
      break;
    case 'f':
      ui.setView('search');
      break;
    case 'c':
      ui.setView('catalog');
      break;
    case 's':
      ui.setView('settings');
      break;
    case 'm':
      if (ui.selectedKey) {
        ui.setTab('transcript');
        requestAnimationFrame(() => document.getElementById('composer-text')?.focus());
      }
      break;
    case '/':
      document.getElementById('fleet-filter')?.focus();
      break;
    default:
      return;
  }
  e.preventDefault();
}
