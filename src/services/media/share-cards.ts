import { Readable } from 'node:stream';
import type { Db } from '../../db/client.js';
import { one } from '../../db/client.js';
import type { ObjectStore } from '../../storage/object-store.js';
import { objectKeys } from './media-types.js';
import { renderShareCard } from '../../media-tools/share-card.js';

/**
 * Share cards: an image of an approved memory (its words, its first photo,
 * the book's theme) for social networks, rendered by the `share-card.render`
 * job that approval queues. A card belongs to one approval (the submission's
 * share_card_token): if the row left approved, or was approved again, before
 * the render finished, the card is thrown away instead of shown.
 */
export function createShareCards(deps: { db: Db; store: ObjectStore }) {
  const { db, store } = deps;

  return {
    async render(submissionId: string, token: string, o: { signal?: AbortSignal } = {}): Promise<'rendered' | 'stale'> {
      const s = await one<{ book_id: string; text_content: string; author: string | null; title: string; theme: string; share_card_key: string | null }>(
        db,
        `SELECT s.book_id, s.text_content, b.title, b.theme, s.share_card_key,
                COALESCE(NULLIF(s.contributor_name, ''), NULLIF(trim(u.first_name || ' ' || u.last_name), '')) AS author
         FROM submissions s JOIN books b ON b.id = s.book_id LEFT JOIN users u ON u.id = s.contributor_user_id
         WHERE s.id = $1 AND s.share_card_token = $2 AND s.status = 'approved' AND b.deleted_at IS NULL`,
        [submissionId, token],
      );
      if (!s) return 'stale';
      const key = objectKeys.shareCard(s.book_id, submissionId, token);
      if (s.share_card_key === key) return 'rendered'; // a run before this one got as far as recording it
      const photo = await one<{ storage_key: string }>(
        db,
        `SELECT storage_key FROM media WHERE submission_id = $1 AND kind = 'image' AND processing_status = 'complete'
           AND scan_result NOT IN ('infected', 'pending')
         ORDER BY created_at, id LIMIT 1`,
        [submissionId],
      );
      const copy = photo ? await store.localCopy(photo.storage_key, { signal: o.signal }) : null;
      let png: Buffer;
      try {
        png = await renderShareCard({ text: s.text_content, contributorName: s.author ?? '', bookTitle: s.title, theme: s.theme, photoPath: copy?.path });
      } finally {
        await copy?.release();
      }
      await store.put(key, Readable.from([png]), { contentType: 'image/png', signal: o.signal });
      const recorded = await db.query(
        `UPDATE submissions SET share_card_key = $3 WHERE id = $1 AND share_card_token = $2 AND status = 'approved' RETURNING id`,
        [submissionId, token, key],
      );
      if (!recorded.length) {
        await store.delete(key);
        return 'stale';
      }
      return 'rendered';
    },
  };
}
export type ShareCards = ReturnType<typeof createShareCards>;
