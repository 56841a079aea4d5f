import type { Config } from '../../config/config.js';
import type { Db, Tx } from '../../db/client.js';
import type { JobSender } from '../../jobs/job-catalog.js';
import { signatureOf } from '../../lib/contributor.js';
import type { MailMessage } from '../../mail/mailer.js';
import { digestMail, digestText, newMemoryMail, newMemoryText, type DigestFacts, type NewMemoryFacts } from './notification-messages.js';
import {
  claimDelivery,
  findMemoryToAnnounce,
  hasNewSubmissionSubscribers,
  listBooksToDigest,
  listDigestExcerpts,
  selectRecipients,
  type Recipient,
} from './subscription-repository.js';
import type { DeviceService } from '../devices/device-service.js';

const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;
const dayBefore = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
/** Excerpts a digest quotes per book. */
const DIGEST_EXCERPTS = 5;

/** Who a memory is from, as a notification names them. */
const authorOf = (s: { contributor_name: string | null; first_name: string | null; last_name: string | null }) =>
  signatureOf({ contributor_name: s.contributor_name, contributor_first_name: s.first_name, contributor_last_name: s.last_name }) ?? 'Someone';

/**
 * Tells subscribers about memories, each over their subscription's channel:
 * email through the mail job, SMS and Telegram through the provider jobs.
 * Nothing is sent in a request: a new submission queues
 * `notifications.new-submission` in its own transaction (see the submission
 * service), and the daily `notifications.digest` job sends the summaries.
 * Each (subscription, event) is claimed in notification_deliveries in the
 * transaction that queues its message, so a job that runs twice sends once.
 */
export function createNotificationService(deps: { db: Db; config: Config; queue: JobSender; push: Pick<DeviceService, 'reachable' | 'queuePush'> }) {
  const { db, config } = deps;

  /**
   * Queues one message to one recipient over their channel, once per event.
   * A channel the recipient has no address on (or the operator has not
   * configured) is skipped: false.
   */
  async function deliver(
    tx: Tx,
    r: Recipient,
    event: string,
    message: { mail: (to: string) => MailMessage & { stream?: string; userId?: string }; text: string; push: { bookId: string; bookSlug: string; title: string; kind: string } },
  ): Promise<boolean> {
    const { queue } = deps;
    const reachable =
      r.channel === 'push'
        ? await deps.push.reachable(tx, r.user_id)
        : r.channel === 'email'
        ? Boolean(r.email)
        : r.channel === 'sms'
          ? Boolean(r.phone_number && config.messaging.twilio)
          : r.channel === 'whatsapp'
            ? Boolean(r.phone_number && config.messaging.whatsapp)
            : Boolean(r.telegram_chat_id && config.messaging.telegram);
    if (!reachable) return false;
    if (!(await claimDelivery(tx, r.subscription_id, event))) return false;
    switch (r.channel) {
      case 'email':
        await queue.send('mail.send', message.mail(r.email!), { tx });
        break;
      case 'sms':
        await queue.send('sms.send', { to: r.phone_number!, body: message.text }, { tx });
        break;
      case 'telegram':
        await queue.send('telegram.send', { chat_id: r.telegram_chat_id!, text: message.text }, { tx });
        break;
      // A free-form text: WhatsApp delivers it inside the 24-hour window the subscriber's own last message opened.
      case 'whatsapp':
        await queue.send('whatsapp.send', { to: r.phone_number!, text: message.text }, { tx });
        break;
      // Every device of the subscriber: a title and the short preview only.
      case 'push':
        await deps.push.queuePush(tx, queue, r.user_id, { ...message.push, body: message.text });
        break;
    }
    return true;
  }

  return {
    /**
     * Queues `notifications.new-submission` for a memory just written, in
     * the writer's transaction, when its book has anyone to tell. Every path
     * that creates a submission (API, web form, inbound messages) calls this.
     */
    async announce(tx: Tx, submission: { id: string; book_id: string }): Promise<void> {
      if (await hasNewSubmissionSubscribers(tx, submission.book_id)) await deps.queue.send('notifications.new-submission', { submissionId: submission.id }, { tx });
    },

    /**
     * The job's work: tells every active new_submission subscriber of the
     * book (still a member, account live) about the memory, except its
     * author. Returns how many messages were queued.
     */
    async notifyNewSubmission(submissionId: string): Promise<number> {
      return db.transaction(async (tx) => {
        const s = await findMemoryToAnnounce(tx, submissionId);
        // Deleted before the job ran (or its book is going): nothing to tell.
        if (!s) return 0;
        let queued = 0;
        for (const r of await selectRecipients(tx, s.book_id, 'new_submission')) {
          if (r.user_id === s.contributor_user_id) continue;
          const facts: NewMemoryFacts = { bookTitle: s.title, bookSlug: s.slug, from: authorOf(s), source: s.source, text: s.text_content, subscriptionId: r.subscription_id };
          const push = { bookId: s.book_id, bookSlug: s.slug, title: s.title, kind: 'new_submission' };
          if (await deliver(tx, r, `submission:${s.id}`, { mail: (to) => newMemoryMail(to, facts), text: newMemoryText(facts), push })) queued++;
        }
        return queued;
      });
    },

    /**
     * The daily digest for `day` (UTC): every active digest subscriber hears
     * how many memories arrived in their book on the day before, with a few
     * of them quoted; books with none send nothing. Email digests belong to
     * the `digests` mail stream, so a subscriber who left it gets none.
     * At most one digest per subscription and day. Returns how many were queued.
     */
    async sendDigests(day: string): Promise<number> {
      if (!DAY_RE.test(day)) throw new Error(`not a day: ${day}`);
      const covered = dayBefore(day);
      const [from, to] = [`${covered}T00:00:00Z`, `${day}T00:00:00Z`];
      const books = await listBooksToDigest(db, from, to);
      let queued = 0;
      for (const b of books) {
        queued += await db.transaction(async (tx) => {
          const excerpts = await listDigestExcerpts(tx, b.book_id, from, to, DIGEST_EXCERPTS);
          let n = 0;
          for (const r of await selectRecipients(tx, b.book_id, 'digest')) {
            const facts: DigestFacts = {
              bookTitle: b.title,
              bookSlug: b.slug,
              day: covered,
              newCount: b.new_count,
              pendingCount: b.pending_count,
              excerpts: excerpts.map((e) => ({ from: authorOf(e), text: e.text_content })),
              subscriptionId: r.subscription_id,
            };
            const mail = (addr: string) => ({ ...digestMail(addr, facts), stream: 'digests', userId: r.user_id });
            const push = { bookId: b.book_id, bookSlug: b.slug, title: b.title, kind: 'digest' };
            if (await deliver(tx, r, `digest:${day}`, { mail, text: digestText(facts), push })) n++;
          }
          return n;
        });
      }
      return queued;
    },
  };
}
export type NotificationService = ReturnType<typeof createNotificationService>;
