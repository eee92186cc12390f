// The record of each profile installed from the ACP registry (migration 007): where it came from
// and, for a downloaded binary, the SHA-256 of the archive and the folder it lives in.
import type { AcpInstallInfo, RegistryDistribution } from '../../../shared/ipc/types';
import type { Db } from '../db/open';

interface InstallDbRow {
  profile_id: string;
  registry_id: string;
  version: string;
  distribution: RegistryDistribution;
  source: string;
  sha256: string | null;
  size: number | null;
  install_dir: string | null;
  installed_at: number;
}

function toInfo(r: InstallDbRow): AcpInstallInfo {
  return {
    profileId: r.profile_id,
    registryId: r.registry_id,
    version: r.version,
    distribution: r.distribution,
    source: r.source,
    ...(r.sha256 !== null ? { sha256: r.sha256 } : {}),
    ...(r.size !== null ? { size: r.size } : {}),
    ...(r.install_dir !== null ? { installDir: r.install_dir } : {}),
    installedAt: r.installed_at,
  };
}

export function createInstallStore(db: Db) {
  const s = {
    list: db.prepare<[], InstallDbRow>(`SELECT * FROM acp_installs ORDER BY profile_id`),
    get: db.prepare<[string], InstallDbRow>(`SELECT * FROM acp_installs WHERE profile_id = ?`),
    put: db.prepare(
      `INSERT INTO acp_installs (profile_id, registry_id, version, distribution, source, sha256, size, install_dir, installed_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (profile_id) DO UPDATE SET registry_id = excluded.registry_id, version = excluded.version,
         distribution = excluded.distribution, source = excluded.source, sha256 = excluded.sha256, size = excluded.size,
         install_dir = excluded.install_dir, installed_at = excluded.installed_at`,
    ),
    remove: db.prepare(`DELETE FROM acp_installs WHERE profile_id = ?`),
  };
  return {
    list: () => s.list.all().map(toInfo),
    get: (profileId: string) => {
      const r = s.get.get(profileId);
      return r ? toInfo(r) : undefined;
    },
    put(i: AcpInstallInfo): void {
      s.put.run(
        i.profileId,
        i.registryId,
        i.version,
        i.distribution,
        i.source,
        i.sha256 ?? null,
        i.size ?? null,
        i.installDir ?? null,
        i.installedAt,
      );
    },
    remove: (profileId: string) => void s.remove.run(profileId),
  };
}
