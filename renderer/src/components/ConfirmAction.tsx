// A destructive action behind a second click: "Remove…" becomes "Remove <what>" and "Keep".
import { useState } from 'react';

export function ConfirmAction({
  label,
  confirmLabel,
  testId,
  onConfirm,
}: {
  label: string;
  confirmLabel: string;
  /** The first button's test id; the confirming one gets `<testId>-confirm`. */
  testId: string;
  onConfirm(): void;
}) {
  const [confirming, setConfirming] = useState(false);
  if (!confirming) {
    return (
      <button type="button" className="quiet" data-testid={testId} onClick={() => setConfirming(true)}>
        {label}
      </button>
    );
  }
  return (
    <>
      <button type="button" className="danger" data-testid={`${testId}-confirm`} onClick={onConfirm}>
        {confirmLabel}
      </button>
      <button type="button" onClick={() => setConfirming(false)}>
        Keep
      </button>
    </>
  );
}
