import type { Migration } from '../migrate';

// What a real agent reports about a run beyond its tokens (issue 28.6): the cost of the run (the
// growth of the agent's cumulative session cost while it ran, in the agent's currency) and its
// context window (tokens in context of the window's size) as last reported. NULL: the agent
// reported none, and nothing is shown.
export const migration020: Migration = {
  version: 20,
  name: 'run-usage',
  up: `
ALTER TABLE runs ADD COLUMN cost_amount REAL;
ALTER TABLE runs ADD COLUMN cost_currency TEXT;
ALTER TABLE runs ADD COLUMN context_used INTEGER;
ALTER TABLE runs ADD COLUMN context_size INTEGER;
`,
};
