import { useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { useUi } from '../../stores/ui';
import { useSearch } from '../../stores/search';
import { buildCommands, type Command } from './commands';

/** The commands matching the query; nothing to run by that name offers the words as a search. */
function useShown(all: Command[], query: string): Command[] {
  return useMemo(() => {
    const q = query.trim().toLowerCase();
    if (!q) return all;
    const found = all.filter((c) => `${c.label} ${c.hint ?? ''}`.toLowerCase().includes(q));
    // Nothing to run by that name: offer the words as a search across sessions and transcripts.
    const search: Command = {
      id: 'search-for',
      label: `Search sessions and transcripts for “${query.trim()}”`,
      hint: 'f',
      run: () => {
        useSearch.getState().setQuery(query.trim());
        useUi.getState().setView('search');
      },
    };
    return found.length > 0 ? found : [search];
  }, [all, query]);
}

/** Arrows move the active command, Enter runs it, Escape closes the palette. */
function paletteKeys(
  e: KeyboardEvent,
  count: number,
  setActive: (f: (a: number) => number) => void,
  runActive: () => void,
  close: () => void,
): void {
  if (e.key === 'ArrowDown') {
    e.preventDefault();
    setActive((a) => Math.min(count - 1, a + 1));
  } else if (e.key === 'ArrowUp') {
    e.preventDefault();
    setActive((a) => Math.max(0, a - 1));
  } else if (e.key === 'Enter') {
    e.preventDefault();
    runActive();
  } else if (e.key === 'Escape') {
    e.preventDefault();
    close();
  }
}

export function CommandPalette() {
  const setPalette = useUi((s) => s.setPalette);
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const [all] = useState(buildCommands);
  const listRef = useRef<HTMLUListElement>(null);
  const shown = useShown(all, query);

  const close = () => setPalette(false);
  const run = (i: number) => {
    const c = shown[i];
    if (!c) return;
    close();
    c.run();
  };

  return (
    <div className="palette-backdrop" onMouseDown={close}>
      <div
        className="palette"
        role="dialog"
        aria-modal="true"
        aria-label="Command palette"
        data-testid="command-palette"
        onMouseDown={(e) => e.stopPropagation()}
      >
        <input
          autoFocus
          data-testid="palette-input"
          placeholder="Type a command or a session…"
          aria-label="Command"
          aria-controls="palette-list"
          aria-activedescendant={shown[active] ? `cmd-${active}` : undefined}
          value={query}
          onChange={(e) => {
            setQuery(e.target.value);
            setActive(0);
          }}
          onKeyDown={(e) => paletteKeys(e, shown.length, setActive, () => run(active), close)}
        />
        <ul id="palette-list" role="listbox" ref={listRef}>
          {shown.map((c, i) => (
            <li
              key={c.id}
              id={`cmd-${i}`}
              role="option"
              aria-selected={i === active}
              className={i === active ? 'active' : ''}
              data-testid="palette-item"
              onMouseEnter={() => setActive(i)}
              onClick={() => run(i)}
            >
              <span>{c.label}</span>
              {c.hint && <span className="muted small mono">{c.hint}</span>}
            </li>
          ))}
        </ul>
      </div>
    </div>
  );
}
