import type { Migration } from '../migrate';

// One owner per session when several gateways share this database (issue 13.5; ownership/).
// * `owners`: a claim held by one gateway, with its fencing epoch. A gateway makes one when it
//   starts (unless it took over a gone gateway's claim, then that one serves), and takes over a
//   gone gateway's claims whole: one row changes hands, however many sessions it covers. Whether a
//   gateway is alive is never read from here: its lock file says so (ownership/lock.ts). pid and
//   host name the holder for people reading it.
// * `session_owners`: the claim a session belongs to (the gateway that created it, or whoever took
//   that gateway's claims over). `epoch` is when the session joined it. The row goes with its
//   session.
// * `ownership_clock`: the one epoch counter. Every claim and every join takes the next value, so
//   an epoch is never reused and a gateway learns every change made elsewhere by reading the rows
//   above the last epoch it saw.
export const migration015: Migration = {
  version: 15,
  name: 'ownership',
  up: `
CREATE TABLE owners (
  id          INTEGER PRIMARY KEY,
  gateway_id  TEXT NOT NULL,
  epoch       INTEGER NOT NULL,
  pid         INTEGER NOT NULL,
  host        TEXT NOT NULL
) STRICT;
CREATE INDEX owners_by_epoch ON owners (epoch);

CREATE TABLE session_owners (
  session_key  TEXT PRIMARY KEY REFERENCES sessions (key) ON DELETE CASCADE,
  owner_id     INTEGER NOT NULL REFERENCES owners (id),
  epoch        INTEGER NOT NULL
) STRICT;
CREATE INDEX session_owners_by_owner ON session_owners (owner_id);
CREATE INDEX session_owners_by_epoch ON session_owners (epoch);

CREATE TABLE ownership_clock (
  id     INTEGER PRIMARY KEY CHECK (id = 1),
  epoch  INTEGER NOT NULL
) STRICT;
INSERT INTO ownership_clock (id, epoch) VALUES (1, 0);
`,
};
