import { one, type Queryable } from '../../db/client.js';

export const DEVICE_PLATFORMS = ['web', 'ios', 'android'] as const;
export type DevicePlatform = (typeof DEVICE_PLATFORMS)[number];

export interface DeviceRow {
  id: string;
  user_id: string;
  platform: DevicePlatform;
  name: string | null;
  token_hash: string;
  token_sealed: string;
  created_at: string;
  last_used_at: string | null;
}

const COLUMNS = 'd.id, d.user_id, d.platform, d.name, d.token_hash, d.token_sealed, d.created_at, d.last_used_at';

/**
 * Registers a device: a new row, or the one holding this token already
 * (moved to this user: a token is one device, whoever signed in on it last).
 * `created` tells which.
 */
export async function upsertDevice(
  q: Queryable,
  d: { id: string; userId: string; platform: DevicePlatform; name: string | null; tokenHash: string; tokenSealed: string },
): Promise<{ row: DeviceRow; created: boolean }> {
  const row = await one<DeviceRow & { created: boolean }>(
    q,
    `INSERT INTO devices AS d (id, user_id, platform, name, token_hash, token_sealed) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (platform, token_hash) DO UPDATE SET user_id = EXCLUDED.user_id, name = coalesce(EXCLUDED.name, d.name), token_sealed = EXCLUDED.token_sealed
     RETURNING ${COLUMNS}, (xmax = 0) AS created`,
    [d.id, d.userId, d.platform, d.name, d.tokenHash, d.tokenSealed],
  );
  const { created, ...rest } = row!;
  return { row: rest, created };
}

export function listDevicesOfUser(q: Queryable, userId: string): Promise<DeviceRow[]> {
  return q.query<DeviceRow>(`SELECT ${COLUMNS} FROM devices d WHERE d.user_id = $1 ORDER BY d.created_at, d.id`, [userId]);
}

export function findDevice(q: Queryable, id: string): Promise<DeviceRow | undefined> {
  return one<DeviceRow>(q, `SELECT ${COLUMNS} FROM devices d WHERE d.id = $1`, [id]);
}

export async function deleteDevice(q: Queryable, id: string, userId?: string): Promise<boolean> {
  const rows = await q.query(`DELETE FROM devices WHERE id = $1${userId ? ' AND user_id = $2' : ''} RETURNING id`, userId ? [id, userId] : [id]);
  return rows.length > 0;
}

export async function touchDevice(q: Queryable, id: string): Promise<void> {
  await q.query(`UPDATE devices SET last_used_at = now() WHERE id = $1`, [id]);
}

/** Whether the user is still a member of the book, the book live and not going, the user active. */
export async function isLiveMember(q: Queryable, bookId: string, userId: string): Promise<boolean> {
  const [member] = await q.query(
    `SELECT 1 FROM book_members m JOIN books b ON b.id = m.book_id AND b.deleted_at IS NULL AND b.deletion_requested_at IS NULL
         JOIN users u ON u.id = m.user_id AND u.deleted_at IS NULL AND u.is_active
         WHERE m.book_id = $1 AND m.user_id = $2`,
    [bookId, userId],
  );
  return member !== undefined;
}

/** Whether the user has any device registered for push. */
export async function hasDevice(q: Queryable, userId: string): Promise<boolean> {
  const [device] = await q.query(`SELECT 1 FROM devices WHERE user_id = $1 LIMIT 1`, [userId]);
  return device !== undefined;
}
