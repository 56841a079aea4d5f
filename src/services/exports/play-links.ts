import type { Db, Queryable } from '../../db/client.js';
import { randomToken, sha256 } from '../../lib/secrets.js';
import type { ObjectStore } from '../../storage/object-store.js';
import { findPlayable, insertPlayLink } from './play-link-repository.js';

/**
 * The printed book's way to a voice recording or a video: a QR code to
 * /play/<token>/, a page where it plays. The token is random and only its
 * hash is stored; the page works for as long as the media exists and its
 * memory is approved in a live book (deleting the memory deletes its media,
 * and with it every link). The media itself is served from a short-lived
 * signed URL minted for each visit.
 */

/** How long the page's signed media URL lasts: long enough to listen to a recording, paused or not. */
const PLAY_URL_TTL_SECONDS = 6 * 3600;
const TOKEN_RE = /^[A-Za-z0-9_-]{32,64}$/;

export interface Playable {
  kind: 'audio' | 'video';
  mimeType: string;
  url: string;
  bookTitle: string;
  theme: string;
  contributor: string | null;
}

/** A new link for a media file (one per render: the plaintext goes into the PDF, never into the database). */
export async function issuePlayLink(q: Queryable, mediaId: string): Promise<string> {
  const token = randomToken(24);
  await insertPlayLink(q, sha256(token), mediaId);
  return token;
}

export function createPlayLinks(deps: { db: Db; store: ObjectStore; now: () => Date }) {
  return {
    /** What /play/<token>/ shows; null for an unknown token, or a memory, media or book that is gone or not shown. */
    async find(token: string): Promise<Playable | null> {
      if (!TOKEN_RE.test(token)) return null;
      const row = await findPlayable(deps.db, sha256(token));
      if (!row) return null;
      const signed = await deps.store.signedUrl(row.storage_key, { ttlSeconds: PLAY_URL_TTL_SECONDS, contentType: row.mime_type, now: deps.now() });
      return { kind: row.kind, mimeType: row.mime_type, url: signed.url, bookTitle: row.title, theme: row.theme, contributor: row.contributor };
    },
  };
}
export type PlayLinks = ReturnType<typeof createPlayLinks>;
