import { Readable } from 'node:stream';
import type { Db } from '../../db/client.js';
import type { ObjectStore } from '../../storage/object-store.js';
import { recordSubmissionUpdated } from '../events/event-objects.js';
import { findShareCardPhoto, findShareCardSubject, recordShareCard } from './media-repository.js';
import { objectKeys } from './media-types.js';
import { currentFindings, subjectOf, type FocalPoint } from '../../media-tools/focal-crop.js';
import { renderShareCard } from '../../media-tools/share-card.js';

/** Where a card crops its photo: the cover's focal point, else the photo's stored subject; null leaves it to the card (sharp's attention). */
function focalOf(photo: { focal_x: number | null; focal_y: number | null; subject: unknown }): FocalPoint | null {
  if (photo.focal_x !== null && photo.focal_y !== null) return { x: photo.focal_x, y: photo.focal_y };
  const stored = currentFindings(photo.subject);
  return stored ? subjectOf(stored).focal : null;
}

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
      const s = await findShareCardSubject(db, submissionId, token);
      if (!s) return 'stale';
      const key = objectKeys.shareCard(s.book_id, submissionId, token);
      if (s.share_card_key === key) return 'rendered'; // a run before this one got as far as recording it
      const photo = await findShareCardPhoto(db, submissionId);
      const copy = photo ? await store.localCopy(photo.storage_key, { signal: o.signal }) : null;
      let png: Buffer;
      try {
        png = await renderShareCard({
          text: s.text_content,
          contributorName: s.author ?? '',
          bookTitle: s.title,
          theme: s.theme,
          photoPath: copy?.path,
          // The book's cover is cropped around its focal point; another photo around its subject as processing found it.
          photoFocal: photo ? focalOf(photo) : null,
        });
      } finally {
        await copy?.release();
      }
      await store.put(key, Readable.from([png]), { contentType: 'image/png', signal: o.signal });
      // In a transaction: its start mark keeps the Last-Modified watermark of the submission lists below the row's updated_at.
      const outcome = await db.transaction(async (tx) => {
        const recorded = await recordShareCard(tx, submissionId, token, key);
        // The card's URL is now part of the memory: submission.updated, once (a run beside this one may have recorded it).
        if (recorded === 'recorded') await recordSubmissionUpdated(tx, store, { id: s.book_id, slug: s.slug }, submissionId);
        return recorded;
      });
      if (outcome === 'stale') {
        await store.delete(key);
        return 'stale';
      }
      return 'rendered';
    },
  };
}
export type ShareCards = ReturnType<typeof createShareCards>;
