import type { Queryable } from '../../db/client.js';

/** Stores a play link's token hash for a media file. */
export async function insertPlayLink(q: Queryable, tokenHash: Buffer, mediaId: string): Promise<void> {
  await q.query(`INSERT INTO media_play_links (token_hash, media_id) VALUES ($1, $2)`, [tokenHash, mediaId]);
}

/** What a play link's page shows: its recording, book and contributor, when the media, memory and book may still be shown. */
export async function findPlayable(q: Queryable, tokenHash: Buffer) {
  const [row] = await q.query<{ kind: 'audio' | 'video'; mime_type: string; storage_key: string; title: string; theme: string; contributor: string | null }>(
    `SELECT m.kind, m.mime_type, m.storage_key, b.title, b.theme,
                COALESCE(NULLIF(s.contributor_name, ''), NULLIF(trim(u.first_name || ' ' || u.last_name), '')) AS contributor
         FROM media_play_links l
         JOIN media m ON m.id = l.media_id
         JOIN submissions s ON s.id = m.submission_id
         JOIN books b ON b.id = m.book_id
         LEFT JOIN users u ON u.id = s.contributor_user_id
         WHERE l.token_hash = $1 AND m.kind IN ('audio', 'video') AND m.processing_status = 'complete'
           AND m.scan_result NOT IN ('infected', 'pending') AND s.status = 'approved' AND b.deleted_at IS NULL`,
    [tokenHash],
  );
  return row;
}
