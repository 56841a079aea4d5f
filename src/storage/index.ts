import type { Config } from '../config/config.js';
import { createLocalObjectStore, localStoreOptions } from './local-store.js';
import type { ObjectStore } from './object-store.js';
import type { S3ObjectStoreOptions } from './s3-store.js';

export { ObjectNotFoundError, SigningError, assertObjectKey, type ObjectStore } from './object-store.js';
export { createLocalObjectStore, localStoreOptions, type LocalObjectStore } from './local-store.js';

/** The store the operator configured: files under DATA_DIR/objects (default) or an S3-compatible bucket. */
export function createObjectStore(config: Config): ObjectStore {
  if (config.storage.kind === 's3') {
    if (!config.storage.s3) throw new Error('STORAGE=s3 without S3 settings');
    return lazyS3ObjectStore(config.storage.s3);
  }
  return createLocalObjectStore(localStoreOptions(config));
}

/**
 * The S3 driver, loaded by the first call: the AWS SDK is among the heaviest
 * packages to load, and need not hold up the start. A driver that fails to
 * load fails that call, and the next one tries again.
 */
function lazyS3ObjectStore(options: S3ObjectStoreOptions): ObjectStore {
  let driver: Promise<ObjectStore> | undefined;
  const load = () =>
    (driver ??= import('./s3-store.js').then(
      (m) => m.createS3ObjectStore(options),
      (err) => {
        driver = undefined;
        throw err;
      },
    ));
  return {
    kind: 's3',
    put: async (...args) => (await load()).put(...args),
    get: async (...args) => (await load()).get(...args),
    head: async (...args) => (await load()).head(...args),
    delete: async (...args) => (await load()).delete(...args),
    discardInterrupted: async (...args) => (await load()).discardInterrupted(...args),
    signedUrl: async (...args) => (await load()).signedUrl(...args),
    localCopy: async (...args) => (await load()).localCopy(...args),
    // Never loaded: nothing to close.
    close: async () => (driver ? (await driver).close() : undefined),
  };
}
