import type { FastifyBaseLogger } from 'fastify';
import type { Queryable } from '../../db/client.js';
import { isoMicro } from '../../lib/time.js';
import type { ObjectStore } from '../../storage/object-store.js';
import { findMediaOfSubmissions } from './media-repository.js';
import { MEDIA_URL_TTL_SECONDS, type MediaRow } from './media-types.js';

/**
 * How media and share cards are shown: signed URLs minted afresh on every
 * read. Signing fails closed: a URL that cannot be signed is null (with
 * download_status `unavailable`), never a broken or unsigned one.
 */
export function createMediaViews(deps: { store: ObjectStore; log?: Pick<FastifyBaseLogger, 'warn'> }) {
  const { store } = deps;

  async function sign(key: string, o: { downloadName?: string; contentType?: string } = {}) {
    try {
      return await store.signedUrl(key, { ttlSeconds: MEDIA_URL_TTL_SECONDS, ...o });
    } catch (err) {
      deps.log?.warn({ err, key }, 'could not sign a media URL; answering without it');
      return null;
    }
  }

  /** A file found infected is never downloadable, nor one still waiting for its scan. */
  const downloadable = (m: MediaRow) => m.scan_result !== 'infected' && m.scan_result !== 'pending';

  async function toMedia(m: MediaRow) {
    const [download, thumbnail] = await Promise.all([
      // Always an attachment: uploaded bytes are never rendered inline from the API's origin.
      downloadable(m) ? sign(m.storage_key, { contentType: m.mime_type, downloadName: m.original_filename || `media-${m.id}.${m.mime_type.split('/')[1] ?? 'bin'}` }) : null,
      m.kind === 'video' && m.processing_status === 'complete' && m.thumbnail_key && downloadable(m) ? sign(m.thumbnail_key, { contentType: 'image/jpeg' }) : null,
    ]);
    const expiries = [download, thumbnail].filter((x) => x !== null).map((x) => x.expiresAt.getTime());
    return {
      id: m.id,
      kind: m.kind,
      mime_type: m.mime_type,
      size_bytes: Number(m.size_bytes),
      width: m.width,
      height: m.height,
      duration_seconds: m.duration_seconds,
      processing_status: m.processing_status,
      scan_result: m.scan_result,
      download_url: download?.url ?? null,
      download_status: download ? ('available' as const) : ('unavailable' as const),
      thumbnail_url: thumbnail?.url ?? null,
      urls_expire_at: expiries.length ? isoMicro(new Date(Math.min(...expiries))) : null,
      created_at: m.created_at,
    };
  }

  return {
    toMedia,
    sign,

    /** The media of these submissions, in upload order, keyed by submission id. */
    async summariesFor(q: Queryable, submissionIds: string[]): Promise<Map<string, Awaited<ReturnType<typeof toMedia>>[]>> {
      const out = new Map<string, Awaited<ReturnType<typeof toMedia>>[]>();
      if (!submissionIds.length) return out;
      const rows = await findMediaOfSubmissions(q, submissionIds);
      const shown = await Promise.all(rows.map(toMedia));
      rows.forEach((r, i) => {
        const list = out.get(r.submission_id) ?? [];
        list.push(shown[i]);
        out.set(r.submission_id, list);
      });
      return out;
    },

    /** The share card's signed URL, or null when there is none (or it cannot be signed). */
    async shareCardUrl(key: string | null): Promise<string | null> {
      return key ? ((await sign(key, { contentType: 'image/png' }))?.url ?? null) : null;
    },
  };
}
export type MediaViews = ReturnType<typeof createMediaViews>;
export type MediaView = Awaited<ReturnType<MediaViews['toMedia']>>;
