// Under a profile that came from the ACP registry: which agent and version, how it was installed
// and, for a downloaded binary, the SHA-256 of the archive and where it was unpacked.
import { useEffect } from 'react';
import { useRegistry } from '../../stores/registry';

export function InstallNote({ profileId }: { profileId: string }) {
  const info = useRegistry((s) => s.installs.find((i) => i.profileId === profileId));
  const loaded = useRegistry((s) => s.installs.length > 0);
  useEffect(() => {
    if (!loaded)
      void useRegistry
        .getState()
        .loadInstalls()
        .catch(() => undefined);
  }, [loaded]);
  if (!info) return null;
  return (
    <div className="small muted" data-testid="acp-profile-install">
      From the ACP registry: {info.registryId} {info.version} ({info.distribution}, {info.source})
      {info.sha256 && (
        <>
          {' '}
          · SHA-256{' '}
          <span className="mono sha" data-testid="acp-profile-sha256">
            {info.sha256}
          </span>
        </>
      )}
      {info.installDir && (
        <>
          {' '}
          · in <span className="mono">{info.installDir}</span>
        </>
      )}
    </div>
  );
}
