import type { Db } from '../../db/client.js';

/** One round trip to the database; throws when it does not answer. */
export async function pingDatabase(db: Db): Promise<void> {
  await db.query('SELECT 1');
}
