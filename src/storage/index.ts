import type { Config } from '../config/config.js';
import { createLocalObjectStore, localStoreOptions } from './local-store.js';
import type { ObjectStore } from './object-store.js';
import { createS3ObjectStore } from './s3-store.js';

export { ObjectNotFoundError, SigningError, assertObjectKey, type ObjectStore } from './object-store.js';
export { createLocalObjectStore, localStoreOptions, type LocalObjectStore } from './local-store.js';
export { createS3ObjectStore } from './s3-store.js';

/** The store the operator configured: files under DATA_DIR/objects (default) or an S3-compatible bucket. */
export function createObjectStore(config: Config): ObjectStore {
  if (config.storage.kind === 's3') {
    if (!config.storage.s3) throw new Error('STORAGE=s3 without S3 settings');
    return createS3ObjectStore(config.storage.s3);
  }
  return createLocalObjectStore(localStoreOptions(config));
}
