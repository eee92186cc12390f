// The keyboard shortcuts as a table of keys and what they do (shown on the `?` page).
import { Fragment } from 'react';
import { SHORTCUTS } from './list';

export function ShortcutList() {
  return (
    <section id="shortcuts" aria-labelledby="shortcuts-title">
      <h2 id="shortcuts-title">Keyboard shortcuts</h2>
      <p className="small muted">Letters act when the cursor is not in a text field.</p>
      <dl className="shortcut-list" data-testid="shortcut-list">
        {SHORTCUTS.map((s) => (
          <Fragment key={s.action}>
            <dt data-testid="shortcut-keys">
              {s.keys.map((k, i) => (
                <Fragment key={k}>
                  {i > 0 && ' or '}
                  <kbd className="kbd">{k}</kbd>
                </Fragment>
              ))}
            </dt>
            <dd>{s.action}</dd>
          </Fragment>
        ))}
      </dl>
    </section>
  );
}
