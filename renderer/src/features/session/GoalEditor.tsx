import { useState } from 'react';
import { GOAL_STATUSES, type Goal, type GoalStatus } from '../../../../shared/ipc/types';
import { call, errorMessage } from '../../lib/api';
import { useUi } from '../../stores/ui';

export function GoalEditor({ sessionKey, goal }: { sessionKey: string; goal: Goal | null }) {
  const [objective, setObjective] = useState(goal?.objective ?? '');
  const [status, setStatus] = useState<GoalStatus>(goal?.status ?? 'active');
  const [editing, setEditing] = useState(false);
  const setError = useUi((s) => s.setError);

  const run = async (fn: () => Promise<unknown>) => {
    try {
      await fn();
      setEditing(false);
    } catch (err) {
      setError(errorMessage(err));
    }
  };

  if (!editing) {
    return (
      <div className="goal" data-testid="goal">
        <span className="muted small">Goal</span>{' '}
        {goal ? (
          <>
            <span data-testid="goal-objective">{goal.objective || '(no objective)'}</span>{' '}
            <span className={`badge goal-${goal.status}`} data-testid="goal-status">
              {goal.status}
            </span>
          </>
        ) : (
          <span className="muted">none</span>
        )}{' '}
        <button
          type="button"
          className="link"
          data-testid="goal-edit"
          onClick={() => {
            setObjective(goal?.objective ?? '');
            setStatus(goal?.status ?? 'active');
            setEditing(true);
          }}
        >
          {goal ? 'Edit' : 'Set goal'}
        </button>
      </div>
    );
  }
  return (
    <form
      className="goal editing"
      data-testid="goal-editor"
      onSubmit={(e) => {
        e.preventDefault();
        void run(() => call('goals:set', { sessionKey, objective, status }));
      }}
    >
      <input
        autoFocus
        aria-label="Goal objective"
        data-testid="goal-objective-input"
        value={objective}
        maxLength={2000}
        onChange={(e) => setObjective(e.target.value)}
        onKeyDown={(e) => e.key === 'Escape' && setEditing(false)}
      />
      <select
        aria-label="Goal status"
        data-testid="goal-status-select"
        value={status}
        onChange={(e) => setStatus(e.target.value as GoalStatus)}
      >
        {GOAL_STATUSES.map((s) => (
          <option key={s}>{s}</option>
        ))}
      </select>
      <button type="submit" className="primary" data-testid="goal-save">
        Save
      </button>
      {goal && (
        <button
          type="button"
          data-testid="goal-clear"
          onClick={() => void run(() => call('goals:clear', { sessionKey }))}
        >
          Clear
        </button>
      )}
      <button type="button" onClick={() => setEditing(false)}>
        Cancel
      </button>
    </form>
  );
}
