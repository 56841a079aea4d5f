import { renderCoverBanner } from '../../media-tools/cover-banner.js';
import { findCoverFile } from '../books/cover-views.js';
import type { ObjectStore } from '../../storage/object-store.js';
import type { Config } from '../../config/config.js';
import type { Db, Queryable, Tx } from '../../db/client.js';
import { errors } from '../../errors.js';
import { AUDIO_CAP_BYTES, MULTIPART_CEILING_BYTES } from '../media/media-policy.js';
import type { Actor, BookAccess } from '../books/book-access.js';
import { findBookContext } from '../books/book-repository.js';
import type { BookContext, BookRow } from '../books/book-types.js';
import { recordBookUpdated } from '../events/event-objects.js';
import { SLUG_RE } from '../books/slug.js';
import { pushProviders } from '../devices/device-service.js';
import { findFormKey, formKeyOpens, rotateFormKey, webFormPath, type WebFormBook } from './web-form-key.js';

export const CHANNELS = ['web', 'email', 'sms', 'rcs', 'imessage', 'whatsapp', 'telegram'] as const;
export type Channel = (typeof CHANNELS)[number];

export interface ChannelStatus {
  channel: Channel | 'push';
  enabled: boolean;
  plan_allowed: boolean;
  platform_configured: boolean;
  address: string | null;
  deep_link: string | null;
  /** The push row only: the providers the operator configured (web_push, fcm, apns). */
  providers?: ('web_push' | 'fcm' | 'apns')[];
}

/** Whether the operator has set the channel up (web needs nothing beyond the service itself). */
export function isPlatformConfigured(config: Config, channel: Channel): boolean {
  const m = config.messaging;
  switch (channel) {
    case 'web':
      return true;
    case 'email':
      // Mail reaches a book only through the built-in receiver or the inbound webhook.
      return config.mailInbound.port !== null || config.mailInbound.webhookSecret !== null;
    case 'sms':
      return m.twilio !== null;
    case 'telegram':
      return m.telegram !== null;
    // No adapter sends or receives RCS or Apple Messages for Business yet: credentials alone do not make them work.
    case 'rcs':
    case 'imessage':
      return false;
    // All of its settings (number, number id, token, app secret, verify token): the webhook and the sender both work.
    case 'whatsapp':
      return m.whatsapp !== null;
  }
}

/** The owner may switch a channel off for one book: `settings.channels.<channel>` set to false. */
export function isSwitchedOff(settings: Record<string, unknown>, channel: Channel): boolean {
  const channels = settings.channels;
  return typeof channels === 'object' && channels !== null && (channels as Record<string, unknown>)[channel] === false;
}

/**
 * The book, when it takes memories over `channel` right now: live (not being
 * deleted), active (not archived), not in its billing grace period, its plan
 * allowing the channel and the owner not having switched it off (whether the
 * operator configured the channel is the caller's to check; web needs
 * nothing). Otherwise undefined: to someone outside the book, a closed book
 * and no book look the same. `lock` takes the book's row lock for the
 * caller's transaction.
 */
export async function findOpenChannelBook(q: Queryable, slug: string, channel: Channel, lock: 'update' | null = null): Promise<BookContext | undefined> {
  if (!SLUG_RE.test(slug)) return undefined;
  const ctx = await findBookContext(q, slug, null, lock);
  if (!ctx || ctx.book.deletion_requested_at || ctx.book.status !== 'active' || ctx.inGracePeriod) return undefined;
  if (isSwitchedOff(ctx.book.settings, channel)) return undefined;
  const [plan] = await q.query<{ channels: string[] }>(`SELECT channels FROM plans WHERE slug = $1`, [ctx.book.plan_slug]);
  return plan?.channels.includes(channel) ? ctx : undefined;
}

/**
 * Where a contributor reaches the book on a channel: public addresses and
 * links only, built from the operator's configuration. Provider credentials
 * and webhook secrets never appear here.
 */
function contactOf(config: Config, book: WebFormBook, channel: Channel): { address: string | null; deep_link: string | null } {
  const m = config.messaging;
  switch (channel) {
    case 'web': {
      // The form's link, with the form key when the book is not public.
      const url = `${config.http.publicUrl}${webFormPath(book)}`;
      return { address: url, deep_link: url };
    }
    case 'email': {
      if (!isPlatformConfigured(config, 'email')) return { address: null, deep_link: null };
      const address = `${book.slug}@${m.inboundMailDomain}`;
      return { address, deep_link: `mailto:${address}` };
    }
    case 'sms':
      return m.twilio ? { address: m.twilio.fromNumber, deep_link: `sms:${m.twilio.fromNumber}` } : { address: null, deep_link: null };
    case 'telegram':
      return m.telegram ? { address: `@${m.telegram.botUsername}`, deep_link: `https://t.me/${m.telegram.botUsername}?start=${book.slug}` } : { address: null, deep_link: null };
    // Nothing reaches the book over these yet, so no address is offered.
    case 'rcs':
    case 'imessage':
      return { address: null, deep_link: null };
    case 'whatsapp':
      return m.whatsapp ? { address: m.whatsapp.phoneNumber, deep_link: `https://wa.me/${m.whatsapp.phoneNumber.slice(1)}` } : { address: null, deep_link: null };
  }
}

/**
 * Push to members' devices goes out, not in: its row says which providers
 * the operator configured (on with any of them; every plan may use it).
 */
function pushRow(config: Config): ChannelStatus {
  const providers = pushProviders(config);
  return { channel: 'push', enabled: providers.length > 0, plan_allowed: true, platform_configured: providers.length > 0, address: null, deep_link: null, providers };
}

/** One status row per channel for a book: what its plan allows, what the operator configured, and how to reach it. */
export function createChannelService(deps: { db: Db; config: Config; access: BookAccess; store: ObjectStore }) {
  const { db, config, access } = deps;
  return {
    async listChannels(actor: Actor, slug: string): Promise<ChannelStatus[]> {
      const { ctx } = await access.requireBookAccess(actor, slug, 'read_channels');
      const [plan] = await db.query<{ channels: string[] }>(`SELECT channels FROM plans WHERE slug = $1`, [ctx.book.plan_slug]);
      const allowed = new Set(plan?.channels ?? []);
      const book = { slug: ctx.book.slug, is_public: ctx.book.is_public, form_key: await findFormKey(db, ctx.book.id) };
      return CHANNELS.map((channel): ChannelStatus => {
        const plan_allowed = allowed.has(channel);
        const platform_configured = isPlatformConfigured(config, channel);
        return {
          channel,
          enabled: plan_allowed && platform_configured && !isSwitchedOff(ctx.book.settings, channel),
          plan_allowed,
          platform_configured,
          ...contactOf(config, book, channel),
        };
      }).concat(pushRow(config));
    },

    /**
     * What the contributor form of a book shows (/b/{slug}/), and its path
     * with the key. 404 when the book does not take memories over the web
     * now, and, for a book that is not public, without its form key or with
     * a wrong one: to the visitor, all of these are an unknown book.
     */
    async openWebForm(
      slug: string,
      key: unknown,
    ): Promise<Pick<BookRow, 'slug' | 'title' | 'subtitle' | 'theme'> & { path: string; language?: string; coverPath: string | null; mediaCapBytes: number | null }> {
      const ctx = await findOpenChannelBook(db, slug, 'web');
      const book = ctx && { slug: ctx.book.slug, is_public: ctx.book.is_public, form_key: await findFormKey(db, ctx.book.id) };
      if (!ctx || !book || !formKeyOpens(book, key)) throw errors.notFound('book');
      const language = (ctx.book.settings as Record<string, unknown> | null)?.language;
      // The header shows the book's chosen cover (webFormCover), when it has one that may be shown.
      const cover = await findCoverFile(db, ctx.book);
      const showable = cover && cover.scan_result !== 'infected' && cover.scan_result !== 'pending';
      return {
        slug: ctx.book.slug,
        title: ctx.book.title,
        subtitle: ctx.book.subtitle,
        theme: ctx.book.theme,
        path: webFormPath(book),
        ...(typeof language === 'string' ? { language } : {}),
        coverPath: showable ? webFormPath(book, 'cover.jpg') : null,
        // A voice note or video goes only resumably (the page's script), on a plan that takes audio or video: the most it may be.
        mediaCapBytes: ctx.planFeatures.feature_video
          ? Math.min(Number(ctx.planLimits.max_video_bytes), MULTIPART_CEILING_BYTES)
          : ctx.planFeatures.feature_audio
            ? AUDIO_CAP_BYTES
            : null,
      };
    },

    /**
     * The web form's header picture (GET /b/{slug}/cover.jpg, the form's key
     * rule): the book's chosen cover cropped around its focal point to a 3:1
     * band. Not found when the form does not open or the book has no cover.
     */
    async webFormCover(slug: string, key: unknown): Promise<Buffer> {
      const ctx = await findOpenChannelBook(db, slug, 'web');
      const book = ctx && { slug: ctx.book.slug, is_public: ctx.book.is_public, form_key: await findFormKey(db, ctx.book.id) };
      if (!ctx || !book || !formKeyOpens(book, key)) throw errors.notFound('book');
      const cover = await findCoverFile(db, ctx.book);
      if (!cover || cover.scan_result === 'infected' || cover.scan_result === 'pending') throw errors.notFound('cover');
      const copy = await deps.store.localCopy(cover.storage_key).catch(() => null);
      if (!copy) throw errors.notFound('cover');
      try {
        const jpeg = await renderCoverBanner(copy.path, { x: ctx.book.cover_focal_x ?? 0.5, y: ctx.book.cover_focal_y ?? 0.5 });
        if (!jpeg) throw errors.notFound('cover');
        return jpeg;
      } finally {
        await copy.release().catch(() => {});
      }
    },

    /** The form's path (with its key) for a member of the book, when the book takes memories over the web now. */
    async webFormPathFor(slug: string): Promise<string | undefined> {
      const ctx = await findOpenChannelBook(db, slug, 'web');
      return ctx ? webFormPath({ slug: ctx.book.slug, is_public: ctx.book.is_public, form_key: await findFormKey(db, ctx.book.id) }) : undefined;
    },

    /**
     * Owner only: a new form key, so links with the old one stop opening the
     * form (a leaked link, say). Answers the web channel row with the new address.
     */
    async rotateFormKey(tx: Tx, actor: Actor, slug: string): Promise<ChannelStatus> {
      const { ctx } = await access.requireBookAccess(actor, slug, 'rotate_form_key', { tx, lock: 'update' });
      const key = await rotateFormKey(tx, ctx.book.id);
      // The book's row changed (its updated_at and ETag move): book.updated, as for any change of the book.
      await recordBookUpdated(tx, deps.store, ctx.book.id);
      const [plan] = await tx.query<{ channels: string[] }>(`SELECT channels FROM plans WHERE slug = $1`, [ctx.book.plan_slug]);
      const plan_allowed = (plan?.channels ?? []).includes('web');
      return {
        channel: 'web',
        enabled: plan_allowed && !isSwitchedOff(ctx.book.settings, 'web'),
        plan_allowed,
        platform_configured: true,
        ...contactOf(config, { slug: ctx.book.slug, is_public: ctx.book.is_public, form_key: key }, 'web'),
      };
    },
  };
}
export type ChannelService = ReturnType<typeof createChannelService>;
