// A session's goal: one line (objective and status, with Edit or Set goal) that opens a small
// form to set or clear it. The form starts from the goal as it is each time it opens.
import { useState } from 'react';
import { GOAL_STATUSES, type Goal, type GoalStatus } from '../../../../shared/ipc/types';
import { call, errorMessage } from '../../lib/api';
import { useUi } from '../../stores/ui';

function GoalLine({ goal, onEdit }: { goal: Goal | null; onEdit(): void }) {
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
      <button type="button" className="link" data-testid="goal-edit" onClick={onEdit}>
        {goal ? 'Edit' : 'Set goal'}
      </button>
    </div>
  );
}

function GoalForm({ sessionKey, goal, onClose }: { sessionKey: string; goal: Goal | null; onClose(): void }) {
  const [objective, setObjective] = useState(goal?.objective ?? '');
  const [status, setStatus] = useState<GoalStatus>(goal?.status ?? 'active');
  const setError = useUi((s) => s.setError);

  const run = async (fn: () => Promise<unknown>) => {
    try {
      await fn();
      onClose();
    } catch (err) {
      setError(errorMessage(err));
    }
  };

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
        onKeyDown={(e) => e.key === 'Escape' && onClose()}
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
      <button type="button" onClick={onClose}>
        Cancel
      </button>
    </form>
  );
}

export function GoalEditor({ sessionKey, goal }: { sessionKey: string; goal: Goal | null }) {
  const [editing, setEditing] = useState(false);
  if (!editing) return <GoalLine goal={goal} onEdit={() => setEditing(true)} />;
  return <GoalForm sessionKey={sessionKey} goal={goal} onClose={() => setEditing(false)} />;
}
