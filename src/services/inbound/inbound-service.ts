import type { Config } from '../../config/config.js';
import type { Db, Queryable, Tx } from '../../db/client.js';
import { AppError } from '../../errors.js';
import { uuidv7 } from '../../lib/ids.js';
import { sha256 } from '../../lib/secrets.js';
import { findBookContext } from '../books/book-repository.js';
import { normaliseIdentifier } from '../invitations/identifiers.js';
import { markInvitationAccepted } from '../invitations/invitation-repository.js';
import type { IdentifierType } from '../invitations/invitation-types.js';
import { recordInvitationEvent } from '../events/event-objects.js';
import { joinBook } from '../members/member-service.js';
import type { SubmissionService } from '../submissions/submission-service.js';
import {
  bindTelegramChat,
  claimInboundMessage,
  countMembersOfBook,
  findPendingInvitationByToken,
  findUnboundUserByTelegramUsername,
  findUserByPhone,
  findUserByTelegramChat,
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

/** An inbound SMS, as Twilio posts it (already signature-checked). */
export interface InboundSms {
  messageSid: string;
  from: string;
  body: string;
}

/** The parts of a Telegram Bot API Update we read (already secret-checked). */
export interface TelegramUpdate {
  update_id: number;
  message?: {
    chat?: { id?: number | string; type?: string };
    from?: { id?: number; is_bot?: boolean; username?: string; first_name?: string; last_name?: string };
    text?: string;
    caption?: string;
  };
}

export interface InboundResult {
  /** What came of the message: submitted, accepted, refused:<why>, ignored_<why>. */
  outcome: string;
  acceptedInvitationIds: string[];
  submissionId: string | null;
}

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
export function createInboundService(deps: { db: Db; config: Config; submissions: Pick<SubmissionService, 'receiveInbound'> }) {
  const { db, config, submissions } = deps;

  /** Refuses a delivery seen before; otherwise records it (in the caller's transaction). */
  async function claim(tx: Queryable, provider: InboundProvider, externalId: string) {
    if (!(await claimInboundMessage(tx, provider, externalId))) {
      throw new AppError('forbidden', 'This message was delivered before; a replay is refused.', { provider });
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

  /** The message as a memory in `slug`, or why it is not one. */
  async function submit(tx: Tx, slug: string | undefined, userId: string, text: string, source: 'sms' | 'telegram', contributorName: string | null) {
    if (!slug) return { outcome: 'ignored_no_book', submissionId: null };
    const r = await submissions.receiveInbound(tx, { slug, userId, text, source, contributorName });
    return 'submission' in r ? { outcome: 'submitted', submissionId: r.submission.id } : { outcome: `refused:${r.refused}`, submissionId: null };
  }

  const newest = (list: PendingInvitation[]) => [...list].sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0))[0];

  async function finish(tx: Queryable, provider: InboundProvider, externalId: string, result: InboundResult): Promise<InboundResult> {
    await setInboundOutcome(tx, provider, externalId, result.outcome, result.submissionId);
    return result;
  }

  return {
    /** One inbound SMS (Twilio's MessageSid identifies the delivery). */
    async receiveSms(sms: InboundSms): Promise<InboundResult> {
      return db.transaction(async (tx) => {
        await claim(tx, 'twilio', sms.messageSid);
        let phone: string;
        try {
          phone = normaliseIdentifier('phone', sms.from, config.messaging.phoneRegion);
        } catch {
          // A short code or an alphanumeric sender: no one we could have invited.
          return finish(tx, 'twilio', sms.messageSid, { outcome: 'ignored_sender', acceptedInvitationIds: [], submissionId: null });
        }
        await lockSender(tx, `phone:${phone}`);
        let user = await findUserByPhone(tx, phone);
        const accepted = await acceptInvitations(tx, await selectPendingInvitations(tx, 'phone', phone), {
          known: () => user,
          create: async () => (user = await insertMessagingUser(tx, { id: uuidv7(), phoneNumber: phone })),
        });
        const acceptedIds = accepted.map((i) => i.id);
        if (!user) return finish(tx, 'twilio', sms.messageSid, { outcome: 'ignored_unknown_sender', acceptedInvitationIds: [], submissionId: null });
        const slug = accepted.length ? newest(accepted).slug : await latestBookOf(tx, user.id);
        const s = await submit(tx, slug, user.id, sms.body, 'sms', null);
        return finish(tx, 'twilio', sms.messageSid, { ...s, acceptedInvitationIds: acceptedIds });
      });
    },

    /** One Telegram update (update_id identifies the delivery); only private messages from people are read. */
    async receiveTelegram(update: TelegramUpdate): Promise<InboundResult> {
      const id = String(update.update_id);
      return db.transaction(async (tx) => {
        await claim(tx, 'telegram', id);
        const msg = update.message;
        const chatId = msg?.chat?.id;
        if (!msg || msg.chat?.type !== 'private' || !msg.from || msg.from.is_bot || (typeof chatId !== 'number' && typeof chatId !== 'string')) {
          return finish(tx, 'telegram', id, { outcome: 'ignored_update', acceptedInvitationIds: [], submissionId: null });
        }
        const chat = String(chatId);
        const username = msg.from.username ? msg.from.username.replace(/^@/, '').toLowerCase() : null;
        const name = { firstName: msg.from.first_name?.slice(0, 150) ?? '', lastName: msg.from.last_name?.slice(0, 150) ?? '' };
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
        const s = await submit(tx, slug, user.id, text, 'telegram', contributorName);
        return finish(tx, 'telegram', id, { ...s, acceptedInvitationIds: acceptedIds });
      });
    },
  };
}
export type InboundService = ReturnType<typeof createInboundService>;
