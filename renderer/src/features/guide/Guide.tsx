// "How Sightline works": the step-in → notice → reconcile picture for a first run, reachable from
// the palette, the empty state and the top bar (`?`), with the keyboard shortcuts.
import type { ReactNode } from 'react';
import { noticeText } from '../../../../shared/session-keys';
import { useUi } from '../../stores/ui';
import { resetDemo, startDemo } from '../palette/commands';
import { selectDemoRunning, useFleet } from '../../stores/fleet';
import { EXPLAIN } from '../../lib/explain';
import { ShortcutList } from '../shortcuts/ShortcutList';

const WORKER = 'agent:demo:subagent:research';

function Step({ n, title, children }: { n: number; title: string; children: ReactNode }) {
  return (
    <li className="guide-step" data-testid="guide-step">
      <div className="guide-num" aria-hidden>
        {n}
      </div>
      <h2>{title}</h2>
      {children}
    </li>
  );
}

/** Step in → one notice → reconcile, drawn with the demo's worker. */
function GuideSteps() {
  return (
    <ol className="guide-steps" aria-label="Step in, notice, reconcile">
      <Step n={1} title="You step in">
        <p>
          You send a message to a worker. Its <em>signal log</em> records <code>human_direct_message</code> at
          the log&apos;s next position, say #14 after #12 (positions are shared by all sessions, so they count
          the whole log, not this worker&apos;s changes).
        </p>
        <div className="guide-card human">
          <span className="who">Human → worker</span>
          <span>“Use the changelog from the release branch, not main.”</span>
        </div>
      </Step>
      <li className="guide-arrow" aria-hidden>
        →
      </li>
      <Step n={2} title="The watcher gets one notice">
        <p>
          The coordinator <em>watches</em> the worker (it holds a <em>cursor</em> on it). Its cursor is now
          behind, so one notice is queued for its next turn, and a main session is woken. Twenty more changes
          still make one notice.
        </p>
        <blockquote className="notice-text" title={EXPLAIN.notice}>
          {noticeText(WORKER, 12)}
        </blockquote>
      </Step>
      <li className="guide-arrow" aria-hidden>
        →
      </li>
      <Step n={3} title="It reconciles">
        <p>
          Its turn reads the notice (the cursor moves: L := N) and calls <code>session_status</code> with{' '}
          <code>changesSince 12</code>: exactly the events since then, without message text, before it acts.
        </p>
        <div className="guide-card agent">
          <span className="who">Coordinator</span>
          <span>
            “A human intervened directly in that session, so I will take their instruction into account.”
          </span>
        </div>
      </Step>
    </ol>
  );
}

/** Where each part of the story shows in the app. */
function WhereToSeeIt() {
  return (
    <>
      <h2>Where to see it</h2>
      <dl className="guide-terms">
        <dt>Fleet (left)</dt>
        <dd>
          Every session with its status (waiting for you, running, failed, done — unseen, idle), its agent or
          tool, its last line of activity and its pending notices.
        </dd>
        <dt>Signal log tab</dt>
        <dd>A session&apos;s events: who changed what, when. Never message content.</dd>
        <dt>Watchers tab</dt>
        <dd>The cursors on a session: L last seen, N notified, M material. {EXPLAIN.material}</dd>
        <dt>Changes tab</dt>
        <dd>
          For a session in its own git worktree: what it changed against the base, side by side; comment on
          lines, then merge, rebase, discard or keep the worktree.
        </dd>
        <dt>Inbox</dt>
        <dd>What needs you, and the history of what each watcher was told and when it reconciled.</dd>
        <dt>Catalog</dt>
        <dd>
          Claude Code, Codex, OpenCode and Pi sessions already on this machine. Adopt one and Sightline
          records when a person works in it upstream.
        </dd>
      </dl>
    </>
  );
}

/** Start the demo fleet, or reset the one that runs; back to the fleet. */
function DemoButtons() {
  const setView = useUi((s) => s.setView);
  const demoRunning = useFleet(selectDemoRunning);
  const starting = useFleet((s) => s.demoStarting);
  return (
    <div className="inline">
      {demoRunning ? (
        <button type="button" data-testid="guide-demo-reset" disabled={starting} onClick={resetDemo}>
          Reset the demo fleet
        </button>
      ) : (
        <button
          type="button"
          className="primary"
          data-testid="guide-demo"
          disabled={starting}
          onClick={startDemo}
        >
          Start the demo fleet
        </button>
      )}
      <button type="button" onClick={() => setView('session')}>
        Back to the fleet
      </button>
    </div>
  );
}

export function Guide() {
  return (
    <section className="page guide" data-testid="guide">
      <h1>How Sightline works</h1>
      <p>
        Several agent sessions often work on one problem: a coordinator delegates to workers, and you step
        straight into one of them. The moment you do, the coordinator&apos;s picture of that worker is stale.
        Sightline notices, tells the coordinator <strong>once</strong>, and lets it catch up before it acts.
      </p>
      <GuideSteps />
      <WhereToSeeIt />
      <ShortcutList />
      <DemoButtons />
    </section>
  );
}
