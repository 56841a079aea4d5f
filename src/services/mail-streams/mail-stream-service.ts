import { randomUUID } from 'node:crypto';
import type { Config } from '../../config/config.js';
import type { Db, Queryable, Tx } from '../../db/client.js';
import { one } from '../../db/client.js';
import { AppError, errors } from '../../errors.js';
import type { JobSender } from '../../jobs/job-catalog.js';
import { isUuid } from '../../lib/ids.js';
import { sha256 } from '../../lib/secrets.js';
import { activityReminderMail, digestMail, onboardingFollowUpMail, welcomeMail, type DigestBook } from './mail-stream-messages.js';
import { isMailStream, MAIL_STREAMS, TOKEN_STREAMS, type MailStream, type StreamMail } from './mail-stream-types.js';

/** The onboarding follow-up goes out this long after sign-up. */
export const ONBOARDING_FOLLOW_UP_SECONDS = 3 * 24 * 3600;
/** An owner is nudged once a book has had no new memory for this many days (once per quiet stretch). */
export const ACTIVITY_QUIET_DAYS = 14;

/** An unknown stream is 400 unknown_stream, with the streams there are in details.offered. */
export function mustBeStream(stream: string): MailStream {
  if (!isMailStream(stream)) {
    throw new AppError('unknown_stream', `There is no mail stream "${stream}".`, { stream, offered: [...MAIL_STREAMS] });
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
export function createMailStreamService(deps: { db: Db; config: Pick<Config, 'http'>; queue?: JobSender }) {
  const { db, config } = deps;

  function needQueue(): JobSender {
    if (!deps.queue) throw new Error('mail streams need the job queue');
    return deps.queue;
  }

  async function leave(q: Queryable, userId: string, stream: MailStream) {
    const inserted = await q.query(
      `INSERT INTO mail_stream_optouts (user_id, stream) VALUES ($1, $2) ON CONFLICT (user_id, stream) DO NOTHING RETURNING stream`,
      [userId, stream],
    );
    return { stream, unsubscribed: true as const, already_unsubscribed: inserted.length === 0 };
  }

  async function enqueue(q: Queryable, mail: StreamMail, startAfterSeconds?: number) {
    await needQueue().send('mail.send', mail, { tx: q, startAfterSeconds });
  }

  /** Queues the mail once per (user, stream, period); false when it was queued before. */
  async function enqueueOnce(mail: StreamMail, period: string): Promise<boolean> {
    return db.transaction(async (tx) => {
      const claimed = await tx.query(
        `INSERT INTO mail_stream_sends (user_id, stream, period) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING period`,
        [mail.userId, mail.stream, period],
      );
      if (!claimed.length) return false;
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
        throw new AppError('stream_not_token_supported', `The unsubscribe link works for ${TOKEN_STREAMS.join(', ')} only; sign in to leave "${s}".`, {
          stream: s,
          token_streams: [...TOKEN_STREAMS],
        });
      }
      const invalid = () => errors.unauthorized('The unsubscribe token is missing or invalid.');
      if (!token || !isUuid(token)) throw invalid();
      return db.transaction(async (tx) => {
        const row = await one<{ user_id: string }>(
          tx,
          `SELECT t.user_id FROM mail_unsubscribe_tokens t JOIN users u ON u.id = t.user_id AND u.deleted_at IS NULL
           WHERE t.token_hash = $1 AND t.stream = $2`,
          [sha256(token.toLowerCase()), s],
        );
        if (!row) throw invalid();
        return leave(tx, row.user_id, s);
      });
    },

    /** Whether stream mail may go to this user now: the account is live and has not left the stream. */
    async allowsMail(userId: string, stream: string): Promise<boolean> {
      const row = await one<{ ok: boolean }>(
        db,
        `SELECT NOT EXISTS (SELECT 1 FROM mail_stream_optouts o WHERE o.user_id = u.id AND o.stream = $2) AS ok
         FROM users u WHERE u.id = $1 AND u.deleted_at IS NULL AND u.is_active`,
        [userId, stream],
      );
      return row?.ok === true;
    },

    /**
     * Onboarding for a new account: the welcome mail now and the follow-up
     * in a few days, both with the one-click unsubscribe link and the
     * List-Unsubscribe and List-Unsubscribe-Post headers (RFC 8058).
     */
    async startOnboarding(userId: string): Promise<void> {
      await db.transaction(async (tx) => {
        const user = await one<{ email: string; first_name: string }>(tx, `SELECT email, first_name FROM users WHERE id = $1 AND deleted_at IS NULL`, [userId]);
        if (!user) return;
        const token = randomUUID();
        await tx.query(`INSERT INTO mail_unsubscribe_tokens (token_hash, user_id, stream) VALUES ($1, $2, 'onboarding')`, [sha256(token), userId]);
        const publicUrl = config.http.publicUrl;
        // Mail programs POST to the API route (one click); people follow the page link in the text, which asks first.
        const oneClickUrl = `${publicUrl}/api/v1/me/unsubscribe/onboarding/token/?token=${token}`;
        const unsubscribeUrl = `${publicUrl}/accounts/unsubscribe/?token=${token}`;
        const headers = { 'List-Unsubscribe': `<${oneClickUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
        const base = { stream: 'onboarding' as const, userId, headers };
        await enqueue(tx, { ...welcomeMail(user.email, user.first_name, { publicUrl, unsubscribeUrl }), ...base });
        await enqueue(tx, { ...onboardingFollowUpMail(user.email, user.first_name, { publicUrl, unsubscribeUrl }), ...base }, ONBOARDING_FOLLOW_UP_SECONDS);
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
      const rows = await db.query<{ user_id: string; email: string; first_name: string; book_id: string; title: string; new_count: number; pending_count: number }>(
        `SELECT m.user_id, u.email, u.first_name, b.id AS book_id, b.title,
                count(*)::int AS new_count, count(*) FILTER (WHERE s.status = 'pending')::int AS pending_count
         FROM book_members m
         JOIN users u ON u.id = m.user_id AND u.deleted_at IS NULL AND u.is_active AND u.email IS NOT NULL
         JOIN books b ON b.id = m.book_id AND b.deleted_at IS NULL AND b.deletion_requested_at IS NULL
         JOIN submissions s ON s.book_id = b.id AND s.created_at >= $1 AND s.created_at < $2
         WHERE m.role IN ('owner', 'admin')
           AND NOT EXISTS (SELECT 1 FROM mail_stream_optouts o WHERE o.user_id = m.user_id AND o.stream = 'digests')
         GROUP BY m.user_id, u.email, u.first_name, b.id, b.title
         ORDER BY m.user_id, b.title, b.id`,
        [from, to],
      );
      if (!rows.length) return 0;
      const bookIds = [...new Set(rows.map((r) => r.book_id))];
      const excerpts = await db.query<{ book_id: string; contributor_name: string | null; text_content: string }>(
        `SELECT book_id, contributor_name, text_content FROM (
           SELECT s.book_id, s.contributor_name, s.text_content,
                  row_number() OVER (PARTITION BY s.book_id ORDER BY s.created_at DESC, s.id DESC) AS n
           FROM submissions s WHERE s.book_id = ANY ($1::uuid[]) AND s.created_at >= $2 AND s.created_at < $3
         ) x WHERE n <= 3`,
        [bookIds, from, to],
      );
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
      const rows = await db.query<{ book_id: string; slug: string; title: string; owner_id: string; email: string; first_name: string; last_memory_at: string | null }>(
        `SELECT b.id AS book_id, b.slug, b.title, b.owner_id, u.email, u.first_name, last.at AS last_memory_at
         FROM books b
         JOIN users u ON u.id = b.owner_id AND u.deleted_at IS NULL AND u.is_active
         LEFT JOIN LATERAL (SELECT max(s.created_at) AS at FROM submissions s WHERE s.book_id = b.id) last ON true
         WHERE b.deleted_at IS NULL AND b.deletion_requested_at IS NULL AND b.status = 'active'
           AND COALESCE(last.at, b.created_at) < now() - make_interval(days => $1)
           AND NOT EXISTS (SELECT 1 FROM mail_stream_optouts o WHERE o.user_id = b.owner_id AND o.stream = 'activity_reminders')
         ORDER BY b.id`,
        [ACTIVITY_QUIET_DAYS],
      );
      let sent = 0;
      for (const r of rows) {
        const mail = activityReminderMail(r.email, r.first_name, {
          title: r.title,
          quietDays: ACTIVITY_QUIET_DAYS,
          contributeUrl: `${config.http.publicUrl}/b/${r.slug}/`,
        });
        if (await enqueueOnce({ ...mail, stream: 'activity_reminders', userId: r.owner_id }, `${r.book_id}:${r.last_memory_at ?? 'none'}`)) sent++;
      }
      return sent;
    },
  };
}
export type MailStreamService = ReturnType<typeof createMailStreamService>;
