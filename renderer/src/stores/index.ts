import { useCatalog } from './catalog';
import { useConsent } from './consent';
import { useDatabase } from './database';
import { useFleet } from './fleet';
import { useInbox } from './inbox';
import { useMcp } from './mcp';
import { useNodes } from './nodes';
import { usePermissions } from './permissions';
import { usePreferences } from './preferences';
import { useProfiles } from './profiles';
import { useRegistry } from './registry';
import { useSearch } from './search';
import { useTranscript } from './transcript';
import { useSettings } from './settings';
import { useStart } from './start';
import { useTimeline } from './timeline';
import { useUi } from './ui';
import { useWatchers } from './watchers';

export {
  useCatalog,
  useConsent,
  useDatabase,
  useFleet,
  useInbox,
  useMcp,
  useNodes,
  usePermissions,
  usePreferences,
  useProfiles,
  useRegistry,
  useSearch,
  useTranscript,
  useSettings,
  useStart,
  useTimeline,
  useUi,
  useWatchers,
};

/** Every store back to its first state (tests). */
export function resetStores(): void {
  for (const s of [
    useCatalog,
    useConsent,
    useDatabase,
    useFleet,
    useInbox,
    useMcp,
    useNodes,
    usePermissions,
    usePreferences,
    useProfiles,
    useRegistry,
    useSearch,
    useTranscript,
    useSettings,
    useStart,
    useTimeline,
    useUi,
    useWatchers,
  ]) {
    s.getState().reset();
  }
}
