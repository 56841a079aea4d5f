import type { Config } from '../../config/config.js';

export interface BackupEraser {
  readonly configured: boolean;
  /** True once the operator's endpoint confirms erasure (any 2xx); false means retry later. */
  erase(target: { kind: 'book' | 'user'; id: string }): Promise<boolean>;
}

const TIMEOUT_MS = 5000;

/**
 * Off-site backup erasure through the operator's endpoint (BACKUP_ERASURE_URL):
 * `POST {kind, id}`; any 2xx means erased, anything else or no connection
 * means not yet. With no endpoint configured there is nothing to erase.
 */
export function createBackupEraser(config: Pick<Config, 'backupErasureUrl'>): BackupEraser {
  const url = config.backupErasureUrl;
  return {
    configured: url !== null,
    async erase(target) {
      if (!url) return true;
      try {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(target),
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
        await res.body?.cancel();
        return res.ok;
      } catch {
        return false;
      }
    },
  };
}
