// New session's working folder: the native picker in the desktop app, a path field checked as the
// person types (on a node, checked on that machine) in browser mode and beside the picker.
import { useEffect, useState } from 'react';
import type { FolderCheck } from '../../../../shared/ipc';
import { errorMessage } from '../../lib/api';
import { useStart } from '../../stores/start';
import { useUi } from '../../stores/ui';

export function FolderField({
  value,
  node,
  onChange,
}: {
  value: string;
  node: string;
  onChange(v: string): void;
}) {
  const app = useUi((s) => s.app);
  const check = useStart((s) => s.check);
  const pick = useStart((s) => s.pick);
  // The answer for the path it was asked about; shown only while that is what the field says.
  const [checked, setChecked] = useState<{ asked: string; result: FolderCheck } | null>(null);
  const [pickError, setPickError] = useState<string | null>(null);
  useEffect(() => {
    const asked = value.trim();
    if (!asked) return;
    let live = true;
    const key = `${node}\0${asked}`;
    const timer = setTimeout(() => {
      check(asked, node || undefined).then(
        (result) => live && setChecked({ asked: key, result }),
        (err: unknown) =>
          live && setChecked({ asked: key, result: { path: asked, ok: false, reason: errorMessage(err) } }),
      );
    }, 200);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [value, node, check]);
  const result = checked && checked.asked === `${node}\0${value.trim()}` ? checked.result : null;
  return (
    <>
      <label htmlFor="start-cwd">Working folder</label>
      <div>
        <div className="inline">
          <input
            id="start-cwd"
            data-testid="start-cwd"
            className="mono grow"
            value={value}
            placeholder={
              node
                ? '/path/to/the/project on that machine'
                : '/path/to/your/project (empty: a fresh folder of its own)'
            }
            onChange={(e) => onChange(e.target.value)}
          />
          {app?.mode === 'electron' && !node && (
            <button
              type="button"
              data-testid="start-cwd-browse"
              onClick={() =>
                pick().then(
                  (p) => p && onChange(p),
                  (err: unknown) => setPickError(errorMessage(err)),
                )
              }
            >
              Browse…
            </button>
          )}
        </div>
        {result && (
          <p className={result.ok ? 'field-note ok' : 'field-note bad'} data-testid="start-cwd-check">
            {result.ok ? `✓ ${result.path}` : result.reason}
          </p>
        )}
        {pickError && <p className="field-note bad">{pickError}</p>}
      </div>
    </>
  );
}
