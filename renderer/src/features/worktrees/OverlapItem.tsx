// Inbox: two (or more) live sessions whose worktrees of one repository change the same files.
import type { WorktreeOverlapItem } from '../../../../shared/ipc';
import { SessionName } from '../../components/SessionName';

export function OverlapItem({ item }: { item: WorktreeOverlapItem }) {
  return (
    <>
      <div className="inbox-title">
        <span className="badge alert">worktrees overlap</span>{' '}
        {item.sessionKeys.map((k, i) => (
          <span key={k}>
            {i > 0 && ' and '}
            <SessionName sessionKey={k} />
          </span>
        ))}
      </div>
      <p className="small" data-testid="overlap-files">
        Both change {item.paths.join(', ')} <span className="muted">in {item.repository}</span>
      </p>
    </>
  );
}
