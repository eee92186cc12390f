// A checkbox with its words after it, both inside one label, so a click on the words ticks it.
import type { ReactNode } from 'react';

export function Checkbox(props: {
  testId: string;
  checked: boolean;
  onChange(checked: boolean): void;
  className?: string;
  children: ReactNode;
}) {
  return (
    <label className={props.className}>
      <input
        type="checkbox"
        data-testid={props.testId}
        checked={props.checked}
        onChange={(e) => props.onChange(e.target.checked)}
      />{' '}
      {props.children}
    </label>
  );
}
