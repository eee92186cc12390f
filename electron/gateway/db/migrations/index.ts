// Every migration, in order. Add a file `NNN-name.ts` and one line here; never edit a shipped one.
import type { Migration } from '../migrate';
import { migration001 } from './001-state-core';
import { migration002 } from './002-runtime';
import { migration003 } from './003-catalog';
import { migration004 } from './004-ui';
import { migration005 } from './005-catalog-provider-ids';
import { migration006 } from './006-search-preferences';
import { migration007 } from './007-pending-index';
import { migration008 } from './008-trust';
import { migration009 } from './009-foreign-keys';
import { migration010 } from './010-mcp';
import { migration011 } from './011-session-folder';
import { migration012 } from './012-acp-installs';
import { migration013 } from './013-transcript-sources';
import { migration014 } from './014-nodes';
import { migration015 } from './015-ownership';
import { migration016 } from './016-supervision';
import { migration017 } from './017-reach';
import { migration018 } from './018-node-host-key';
import { migration019 } from './019-worktrees';
import { migration020 } from './020-run-usage';
import { migration021 } from './021-catalog-index';
import { migration022 } from './022-session-source';

export const MIGRATIONS: readonly Migration[] = [
  migration001,
  migration002,
  migration003,
  migration004,
  migration005,
  migration006,
  migration007,
  migration008,
  migration009,
  migration010,
  migration011,
  migration012,
  migration013,
  migration014,
  migration015,
  migration016,
  migration017,
  migration018,
  migration019,
  migration020,
  migration021,
  migration022,
];
