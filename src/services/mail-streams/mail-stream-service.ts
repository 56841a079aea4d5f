import { randomUUID } from 'node:crypto';
import type { Config } from '../../config/config.js';
import type { Db, Queryable, Tx } from '../../db/client.js';
import { errors } from '../../errors.js';
import type { JobSender } from '../../jobs/job-catalog.js';
import { isUuid } from '../../lib/ids.js';
import { isLanguage, type Language } from '../../lib/i18n/languages.js';
import type { MailMessage } from '../../mail/mailer.js';
import { activityReminderMail, digestMail, onboardingFollowUpMail, welcomeMail, type DigestBook } from './mail-stream-messages.js';
import {
  claimStreamSend,
  findDigestExcerpts,
  findDigestRows,
  findLiveUser,
  findQuietBooks,
  findTokenUser,
  insertOptOut,
  insertUnsubscribeToken,
  streamOpenTo,
} from './mail-stream-repository.js';
import * as streams from './mail-stream-repository.js';
import { isMailStream, MAIL_STREAMS, TOKEN_STREAMS, type MailStream, type StreamMail } from './mail-stream-types.js';
import { webFormPath } from '../channels/web-form-key.js';

/** The onboarding follow-up goes out this long after sign-up. */
export const ONBOARDING_FOLLOW_UP_SECONDS = 3 * 24 * 3600;
/** An owner is nudged once a book has had no new memory for this many days (once per quiet stretch). */
export const ACTIVITY_QUIET_DAYS = 14;

/** An unknown stream is 400 unknown_stream, with the streams there are in details.offered. */
export function mustBeStream(stream: string): MailStream {
  if (!isMailStream(stream)) {
    throw errors.unknownStream(`There is no mail stream "${stream}".`, { stream, offered: [...MAIL_STREAMS] });
  }
  return stream;
}

const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;
const dayBefore = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);

/**
 * The mail streams: who left which, the one-click unsubscribe tokens of
 * onboarding mail, and the stream mail itself (welcome and follow-up at
 * sign-up, the daily digest, activity reminders). Every stream message goes
 * through the mail queue carrying its stream and recipient, and the mail job
 * asks `allowsMail` right before sending: mail of a stream the user left
 * meanwhile is dropped, never sent.
 */
export function createMailStreamService(deps: { db: Db; config: Pick<Config, 'http'>; queue: JobSender }) {
  const { db, config } = deps;


  async function leave(q: Queryable, userId: string, stream: MailStream) {
    const inserted = await insertOptOut(q, userId, stream);
    return { stream, unsubscribed: true as const, already_unsubscribed: !inserted };
  }

  async function enqueue(q: Tx, mail: StreamMail, startAfterSeconds?: number) {
    await deps.queue.send('mail.send', mail, { tx: q, startAfterSeconds });
  }

  /** Queues the mail once per (user, stream, period); false when it was queued before. */
  async function enqueueOnce(mail: StreamMail, period: string): Promise<boolean> {
    return db.transaction(async (tx) => {
      const claimed = await claimStreamSend(tx, mail.userId, mail.stream, period);
      if (!claimed) return false;
      await enqueue(tx, mail);
      return true;
    });
  }

  return {
    /** Leaves a stream; repeating it is harmless (already_unsubscribed: true). */
    async unsubscribe(tx: Tx, actor: { id: string }, stream: string) {
      return leave(tx, actor.id, mustBeStream(stream));
    },

    /**
     * The one-click link of an onboarding mail (RFC 8058). The stream is
     * checked first (400), then the token (401), as the contract orders them.
     */
    async unsubscribeWithToken(stream: string, token: string | undefined) {
      const s = mustBeStream(stream);
      if (!TOKEN_STREAMS.includes(s)) {
        throw errors.streamNotTokenSupported(`The unsubscribe link works for ${TOKEN_STREAMS.join(', ')} only; sign in to leave "${s}".`, {
          stream: s,
          token_streams: [...TOKEN_STREAMS],
        });
      }
      const invalid = () => errors.unauthorized('The unsubscribe token is missing or invalid.');
      if (!token || !isUuid(token)) throw invalid();
      return db.transaction(async (tx) => {
        const userId = await findTokenUser(tx, token, s);
        if (!userId) throw invalid();
        return leave(tx, userId, s);
      });
    },

    /** Whether stream mail may go to this user now: the account is live and has not left the stream. */
    async allowsMail(userId: string, stream: string): Promise<boolean> {
      return streamOpenTo(db, userId, stream);
    },

    /**
     * Onboarding for a new account: the welcome mail now and the follow-up
     * in a few days, both with the one-click unsubscribe link and the
     * List-Unsubscribe and List-Unsubscribe-Post headers (RFC 8058), in
     * `language` (the sign-up page's; English when it is none of ours). Both
     * are written now: the follow-up waits in the queue with its words, so
     * the language of the page it came from is kept until it goes out.
     */
    async startOnboarding(userId: string, language?: unknown): Promise<void> {
      const lang: Language = isLanguage(language) ? language : 'en';
      await db.transaction(async (tx) => {
        const user = await findLiveUser(tx, userId);
        if (!user) return;
        const token = randomUUID();
        await insertUnsubscribeToken(tx, token, userId, 'onboarding');
        const publicUrl = config.http.publicUrl;
        // Mail programs POST to the API route (one click); people follow the page link in the text, which asks first (in the mail's language).
        const oneClickUrl = `${publicUrl}/api/v1/me/unsubscribe/onboarding/token/?token=${token}`;
        const unsubscribeUrl = `${publicUrl}/accounts/unsubscribe/?token=${token}&lang=${lang}`;
        const listHeaders = { 'List-Unsubscribe': `<${oneClickUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
        const streamMail = (mail: MailMessage): StreamMail => ({ ...mail, headers: { ...mail.headers, ...listHeaders }, stream: 'onboarding', userId });
        const o = { publicUrl, unsubscribeUrl, language: lang };
        await enqueue(tx, streamMail(welcomeMail(user.email, user.first_name, o)));
        await enqueue(tx, streamMail(onboardingFollowUpMail(user.email, user.first_name, o)), ONBOARDING_FOLLOW_UP_SECONDS);
      });
    },

    /**
     * The daily digest for `day` (UTC): to every owner and admin, the
     * memories that arrived in their books on the day before. At most one
     * digest per user and day, however often the job runs.
     */
    async sendDigests(day: string): Promise<number> {
      if (!DAY_RE.test(day)) throw new Error(`not a day: ${day}`);
      const from = `${dayBefore(day)}T00:00:00Z`;
      const to = `${day}T00:00:00Z`;
      const rows = await findDigestRows(db, from, to);
      if (!rows.length) return 0;
      const bookIds = [...new Set(rows.map((r) => r.book_id))];
      const excerpts = await findDigestExcerpts(db, bookIds, from, to);
      const byUser = new Map<string, { email: string; firstName: string; books: DigestBook[] }>();
      for (const r of rows) {
        const entry = byUser.get(r.user_id) ?? { email: r.email, firstName: r.first_name, books: [] };
        byUser.set(r.user_id, entry);
        entry.books.push({
          title: r.title,
          newCount: r.new_count,
          pendingCount: r.pending_count,
          excerpts: excerpts.filter((e) => e.book_id === r.book_id).map((e) => ({ name: e.contributor_name, text: e.text_content })),
        });
      }
      let sent = 0;
      for (const [userId, u] of byUser) {
        if (await enqueueOnce({ ...digestMail(u.email, u.firstName, dayBefore(day), u.books), stream: 'digests', userId }, day)) sent++;
      }
      return sent;
    },

    /**
     * Nudges the owner of every active book that has had no new memory for
     * ACTIVITY_QUIET_DAYS: once per quiet stretch (a new memory starts a new one).
     */
    async sendActivityReminders(): Promise<number> {
      const rows = await findQuietBooks(db, ACTIVITY_QUIET_DAYS);
      let sent = 0;
      for (const r of rows) {
        const mail = activityReminderMail(r.email, r.first_name, {
          title: r.title,
          quietDays: ACTIVITY_QUIET_DAYS,
          contributeUrl: `${config.http.publicUrl}${webFormPath(r)}`,
        });
        if (await enqueueOnce({ ...mail, stream: 'activity_reminders', userId: r.owner_id }, `${r.book_id}:${r.last_memory_at ?? 'none'}`)) sent++;
      }
      return sent;
    },
  };
}
export type MailStreamService = ReturnType<typeof createMailStreamService>;

/** An account's purge, in its transaction: its unsubscribe tokens go. */
export function deleteUnsubscribeTokens(q: Queryable, userId: string): Promise<void> {
  return streams.deleteUnsubscribeTokens(q, userId);
}

/** An account's purge, in its transaction: its mail streams' state goes. */
export function deleteUserStreamData(q: Queryable, userId: string): Promise<void> {
  return streams.deleteUserStreamData(q, userId);
}
