import type { Config } from '../../config/config.js';
import type { Db, Queryable, Tx } from '../../db/client.js';
import { errors } from '../../errors.js';
import { uuidv7 } from '../../lib/ids.js';
import { sha256 } from '../../lib/secrets.js';
import { findBookContext } from '../books/book-repository.js';
import { normaliseIdentifier } from '../invitations/identifiers.js';
import { markInvitationAccepted } from '../invitations/invitation-repository.js';
import type { IdentifierType } from '../invitations/invitation-types.js';
import { recordInvitationEvent } from '../events/event-objects.js';
import { joinBook } from '../members/member-service.js';
import type { JobSender } from '../../jobs/job-catalog.js';
import { describeFiles, telegramFiles, type InboundFileRef, type TelegramUpdate } from './provider-payloads.js';
import type { SubmissionService } from '../submissions/submission-service.js';
import { inboundMessages } from '../../metrics/metrics.js';
import {
  bindTelegramChat,
  claimInboundMessage,
  countMembersOfBook,
  findPendingInvitationByToken,
  findUnboundUserByTelegramUsername,
  findUserByPhone,
  findUserByTelegramChat,
  insertInboundMedia,
  insertMessagingUser,
  latestBookOf,
  lockPendingInvitation,
  lockSender,
  selectPendingInvitations,
  setInboundOutcome,
  type InboundProvider,
  type MessagingUser,
  type PendingInvitation,
} from './inbound-repository.js';

/** An inbound SMS or MMS, as Twilio posts it (already signature-checked and read by its schema). */
export interface InboundSms {
  messageSid: string;
  from: string;
  body: string;
  files?: InboundFileRef[];
}

/** One WhatsApp message we take (already signature-checked and read by its schema). */
export interface InboundWhatsApp {
  /** The message id (wamid). */
  id: string;
  /** The sender's number, as the Cloud API gives it (digits, no plus). */
  from: string;
  text: string;
  files: InboundFileRef[];
  profileName: string | null;
}

export type { TelegramUpdate };

export interface InboundResult {
  /** What came of the message: submitted, accepted, refused:<why>, ignored_<why>. */
  outcome: string;
  acceptedInvitationIds: string[];
  submissionId: string | null;
}

/** A name as a provider gives it: no control or format characters (they would reach mail bodies), at most 150 characters. */
export const cleanName = (name: string | undefined) => (name ?? '').replace(/[\p{Cc}\p{Cf}]+/gu, ' ').trim().slice(0, 150);

/** `/start`, `/start <payload>`, `/start@bot <payload>`: what the bot's deep links send. */
const START_RE = /^\/start(?:@[A-Za-z0-9_]+)?(?:\s+(\S+))?\s*$/;
/** An invitation token as the service makes them (randomToken(32), base64url). */
const TOKEN_RE = /^[A-Za-z0-9_-]{20,128}$/;

/**
 * Inbound activation and memories over SMS and Telegram. Every delivery is
 * recorded by the provider's id in the transaction that acts on it, so a
 * replay is refused (403) and changes nothing. The first message from an
 * invited number or username accepts its pending invitations (creating the
 * contributor's account when there is none) and becomes a pending
 * submission; later messages from a member become submissions in the book of
 * the invitation they accepted last (else the book they joined last). A
 * Telegram `/start <token>` from an invitation's deep link accepts that
 * invitation and binds the chat; commands never become memories.
 */
export function createInboundService(deps: { db: Db; config: Config; submissions: Pick<SubmissionService, 'receiveInbound'>; queue?: JobSender }) {
  const { db, config, submissions, queue } = deps;

  /** Refuses a delivery seen before; otherwise records it (in the caller's transaction). */
  async function claim(tx: Queryable, provider: InboundProvider, externalId: string) {
    if (!(await claimInboundMessage(tx, provider, externalId))) {
      throw errors.forbidden('This message was delivered before; a replay is refused.', { provider });
    }
  }

  /**
   * Accepts invitations for a sender, each under its book's row lock (the
   * same lock order as everywhere: book, then invitation): the sender joins
   * with the invitation's role, or keeps the role they have. An invitation
   * whose book is full or in its grace period stays pending. The account is
   * made (`sender.create`) only once an invitation can really be accepted.
   */
  async function acceptInvitations(
    tx: Queryable,
    invitations: PendingInvitation[],
    sender: { known: () => MessagingUser | undefined; create: () => Promise<MessagingUser> },
  ): Promise<PendingInvitation[]> {
    const accepted: PendingInvitation[] = [];
    for (const inv of invitations) {
      const ctx = await findBookContext(tx, inv.slug, sender.known()?.id ?? null, 'update');
      if (!ctx || ctx.inGracePeriod || !(await lockPendingInvitation(tx, inv.id))) continue;
      // Judged before joining (and before an account is made) so a full book leaves the invitation pending instead of failing the message.
      if (ctx.role === null && (await countMembersOfBook(tx, ctx.book.id)) >= ctx.planLimits.max_members_per_book) continue;
      const user = sender.known() ?? (await sender.create());
      if (ctx.role === null) await joinBook(tx, ctx, user.id, inv.role);
      await markInvitationAccepted(tx, inv.id, user.id);
      await recordInvitationEvent(tx, 'invitation.accepted', ctx.book.id, inv.id);
      accepted.push(inv);
    }
    return accepted;
  }

  /**
   * The message as a memory in `slug`, or why it is not one. Its files are
   * recorded with it and each queued for the fetch job (the provider is
   * never called inside the webhook's request); a message of files only is
   * a memory in words saying what came ("Photo", "Voice note").
   */
  async function submit(
    tx: Tx,
    slug: string | undefined,
    userId: string,
    message: { provider: InboundProvider; externalId: string; text: string; files: InboundFileRef[]; replyTo: string },
    source: 'sms' | 'telegram' | 'whatsapp',
    contributorName: string | null,
  ) {
    if (!slug) return { outcome: 'ignored_no_book', submissionId: null };
    // Files are fetched by the job queue: a process built without one takes the words alone.
    const files = queue ? message.files : [];
    const text = message.text.trim() || (files.length ? describeFiles(files) : '');
    const r = await submissions.receiveInbound(tx, { slug, userId, text, source, contributorName });
    if (!('submission' in r)) return { outcome: `refused:${r.refused}`, submissionId: null };
    for (const [position, f] of files.entries()) {
      const key = { provider: message.provider, externalId: message.externalId, position };
      await insertInboundMedia(tx, { ...key, submissionId: r.submission.id, ref: f.ref, declaredType: f.declaredType, filename: f.filename, replyTo: message.replyTo });
      await queue!.send('inbound.fetch-media', key, { tx });
    }
    return { outcome: files.length ? `submitted_with_${files.length}_files` : 'submitted', submissionId: r.submission.id };
  }

  /** Inbound activation by phone number (SMS and WhatsApp alike): invitations accepted, then the message as a memory. */
  async function receiveByPhone(
    tx: Tx,
    provider: 'twilio' | 'whatsapp',
    externalId: string,
    phone: string,
    message: { text: string; files: InboundFileRef[]; contributorName: string | null },
  ): Promise<InboundResult> {
    await lockSender(tx, `phone:${phone}`);
    let user = await findUserByPhone(tx, phone);
    const accepted = await acceptInvitations(tx, await selectPendingInvitations(tx, 'phone', phone), {
      known: () => user,
      create: async () => (user = await insertMessagingUser(tx, { id: uuidv7(), phoneNumber: phone })),
    });
    const acceptedIds = accepted.map((i) => i.id);
    if (!user) return finish(tx, provider, externalId, { outcome: 'ignored_unknown_sender', acceptedInvitationIds: [], submissionId: null });
    const slug = accepted.length ? newest(accepted).slug : await latestBookOf(tx, user.id);
    const source = provider === 'twilio' ? 'sms' : 'whatsapp';
    const s = await submit(tx, slug, user.id, { provider, externalId, text: message.text, files: message.files, replyTo: phone }, source, message.contributorName);
    return finish(tx, provider, externalId, { ...s, acceptedInvitationIds: acceptedIds });
  }

  const newest = (list: PendingInvitation[]) => [...list].sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0))[0];

  /** Counts a message once its transaction has committed, by what came of it. */
  async function counted(provider: InboundProvider, received: Promise<InboundResult>): Promise<InboundResult> {
    const result = await received;
    inboundMessages.inc({ provider, outcome: result.outcome });
    return result;
  }

  async function finish(tx: Queryable, provider: InboundProvider, externalId: string, result: InboundResult): Promise<InboundResult> {
    await setInboundOutcome(tx, provider, externalId, result.outcome, result.submissionId);
    return result;
  }

  return {
    /** One inbound SMS (Twilio's MessageSid identifies the delivery). */
    async receiveSms(sms: InboundSms): Promise<InboundResult> {
      return counted('twilio', db.transaction(async (tx) => {
        await claim(tx, 'twilio', sms.messageSid);
        let phone: string;
        try {
          phone = normaliseIdentifier('phone', sms.from, config.messaging.phoneRegion);
        } catch {
          // A short code or an alphanumeric sender: no one we could have invited.
          return finish(tx, 'twilio', sms.messageSid, { outcome: 'ignored_sender', acceptedInvitationIds: [], submissionId: null });
        }
        return receiveByPhone(tx, 'twilio', sms.messageSid, phone, { text: sms.body, files: sms.files ?? [], contributorName: null });
      }));
    },

    /**
     * One WhatsApp message (its wamid identifies the delivery). Meta sends a
     * notification again until it gets a 200, so a message seen before is
     * skipped quietly rather than refused.
     */
    async receiveWhatsApp(m: InboundWhatsApp): Promise<InboundResult> {
      return counted('whatsapp', db.transaction(async (tx) => {
        if (!(await claimInboundMessage(tx, 'whatsapp', m.id))) return { outcome: 'ignored_replay', acceptedInvitationIds: [], submissionId: null };
        let phone: string;
        try {
          phone = normaliseIdentifier('phone', `+${m.from}`, config.messaging.phoneRegion);
        } catch {
          return finish(tx, 'whatsapp', m.id, { outcome: 'ignored_sender', acceptedInvitationIds: [], submissionId: null });
        }
        const name = cleanName(m.profileName ?? undefined) || null;
        return receiveByPhone(tx, 'whatsapp', m.id, phone, { text: m.text, files: m.files, contributorName: name });
      }));
    },

    /**
     * A signed delivery that is not a message we take (a payload of another
     * shape, a status callback): recorded by its id for operators when it
     * has one, nothing else. A repeat changes nothing.
     */
    async ignore(provider: InboundProvider, externalId: string | null, why: string): Promise<InboundResult> {
      const result = { outcome: `ignored_${why}`, acceptedInvitationIds: [], submissionId: null };
      if (!externalId) return counted(provider, Promise.resolve(result));
      return counted(provider, db.transaction(async (tx) => ((await claimInboundMessage(tx, provider, externalId)) ? finish(tx, provider, externalId, result) : result)));
    },

    /** One Telegram update (update_id identifies the delivery); only private messages from people are read. */
    async receiveTelegram(update: TelegramUpdate): Promise<InboundResult> {
      const id = String(update.update_id);
      return counted('telegram', db.transaction(async (tx) => {
        await claim(tx, 'telegram', id);
        const msg = update.message;
        if (!msg || msg.chat.type !== 'private' || !msg.from || msg.from.is_bot) {
          return finish(tx, 'telegram', id, { outcome: 'ignored_update', acceptedInvitationIds: [], submissionId: null });
        }
        const chat = String(msg.chat.id);
        const username = msg.from.username ? msg.from.username.replace(/^@/, '').toLowerCase() || null : null;
        const name = { firstName: cleanName(msg.from.first_name), lastName: cleanName(msg.from.last_name) };
        const text = msg.text ?? msg.caption ?? '';
        await lockSender(tx, `telegram:${chat}`);

        let user = (await findUserByTelegramChat(tx, chat)) ?? (username ? await findUnboundUserByTelegramUsername(tx, username) : undefined);
        const sender = {
          known: () => user,
          create: async () => (user = await insertMessagingUser(tx, { id: uuidv7(), telegramUsername: username, telegramChatId: chat, ...name })),
        };

        const start = START_RE.exec(text.trim());
        const invitations: PendingInvitation[] = [];
        // The deep link's token names one invitation, whoever holds the link; a payload that is not one (a book's channel link) names none.
        if (start?.[1] && TOKEN_RE.test(start[1])) {
          const byToken = await findPendingInvitationByToken(tx, sha256(start[1]));
          if (byToken) invitations.push(byToken);
        }
        if (username) {
          for (const inv of await selectPendingInvitations(tx, 'telegram' satisfies IdentifierType, username)) {
            if (!invitations.some((i) => i.id === inv.id)) invitations.push(inv);
          }
        }
        invitations.sort((a, b) => (a.book_id < b.book_id ? -1 : a.book_id > b.book_id ? 1 : 0));
        const accepted = await acceptInvitations(tx, invitations, sender);
        const acceptedIds = accepted.map((i) => i.id);
        if (!user) return finish(tx, 'telegram', id, { outcome: 'ignored_unknown_sender', acceptedInvitationIds: [], submissionId: null });
        // From now on the bot can write to them (notifications, "you were added").
        await bindTelegramChat(tx, user.id, chat, username);
        // Commands (/start, /help…) are talk with the bot, never memories.
        if (text.trim().startsWith('/')) {
          return finish(tx, 'telegram', id, { outcome: accepted.length ? 'accepted' : 'ignored_command', acceptedInvitationIds: acceptedIds, submissionId: null });
        }
        const slug = accepted.length ? newest(accepted).slug : await latestBookOf(tx, user.id);
        const contributorName = [name.firstName, name.lastName].filter(Boolean).join(' ').trim() || null;
        const s = await submit(tx, slug, user.id, { provider: 'telegram', externalId: id, text, files: telegramFiles(msg), replyTo: chat }, 'telegram', contributorName);
        return finish(tx, 'telegram', id, { ...s, acceptedInvitationIds: acceptedIds });
      }));
    },
  };
}
export type InboundService = ReturnType<typeof createInboundService>;
