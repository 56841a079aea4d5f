import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config/config.js';
import type { Db, Tx } from '../../db/client.js';
import { AppError } from '../../errors.js';
import type { JobSender } from '../../jobs/job-catalog.js';
import { openTelegramFile, openTwilioMedia, openWhatsAppMedia, ProviderFileRefused, type ProviderFile } from '../../messaging/inbound-files.js';
import { findOpenChannelBook, type Channel } from '../channels/channel-service.js';
import type { MediaService, StagedUpload } from '../media/media-service.js';
import { findSubmissionInBook } from '../submissions/submission-service.js';
import { findInboundMedia, settleInboundMedia, type InboundMediaRow, type InboundProvider } from './inbound-repository.js';

export interface InboundMediaKey {
  provider: InboundProvider;
  externalId: string;
  position: number;
}

const CHANNEL: Record<InboundProvider, Channel> = { twilio: 'sms', telegram: 'telegram', whatsapp: 'whatsapp' };

const whatOf = (type: string | null) =>
  type?.startsWith('image/') ? 'photo' : type?.startsWith('video/') ? 'video' : type?.startsWith('audio/') ? 'recording' : 'file';

/**
 * Files sent with messages (MMS, Telegram, WhatsApp), fetched by the job
 * queue after the memory was recorded: from the provider's own host with
 * its credentials (see messaging/inbound-files.ts), streamed through the
 * media intake (type from the bytes, plan gates, caps, storage left) and
 * attached in one short transaction under the file row's lock, only while
 * the row is still pending, so a job run twice attaches one copy. A file
 * that is refused, or that still fails on the job's last run, leaves the
 * memory with its words, and the sender is told why over the same channel.
 */
export function createChannelMediaService(deps: {
  db: Db;
  config: Config;
  media: Pick<MediaService, 'stageChannelFile' | 'attachStaged' | 'discardStaged' | 'recordSubmissionUpdated'>;
  queue: JobSender;
}) {
  const { db, config, media } = deps;

  function open(row: InboundMediaRow, signal: AbortSignal): Promise<ProviderFile> {
    const m = config.messaging;
    switch (row.provider) {
      case 'twilio':
        if (!m.twilio) throw new ProviderFileRefused('twilio', 'SMS is no longer configured');
        return openTwilioMedia(m.twilio, row.ref, { signal });
      case 'telegram':
        if (!m.telegram) throw new ProviderFileRefused('telegram', 'Telegram is no longer configured');
        return openTelegramFile(m.telegram, row.ref, { signal });
      case 'whatsapp':
        if (!m.whatsapp) throw new ProviderFileRefused('whatsapp', 'WhatsApp is no longer configured');
        return openWhatsAppMedia(m.whatsapp, row.ref, { signal });
    }
  }

  /** Tells the sender, over the channel the file came by, in the transaction that settles the file. */
  async function tellSender(tx: Tx, row: InboundMediaRow, text: string) {
    if (!row.reply_to) return;
    const m = config.messaging;
    if (row.provider === 'twilio' && m.twilio) await deps.queue.send('sms.send', { to: row.reply_to, body: text }, { tx });
    if (row.provider === 'telegram' && m.telegram) await deps.queue.send('telegram.send', { chat_id: row.reply_to, text }, { tx });
    if (row.provider === 'whatsapp' && m.whatsapp) await deps.queue.send('whatsapp.send', { to: row.reply_to, text }, { tx });
  }

  /** Marks the file refused or failed and tells the sender once: only the run that moves it from pending does either. */
  async function giveUp(key: InboundMediaKey, status: 'refused' | 'failed', reason: string, why: string): Promise<void> {
    await db.transaction(async (tx) => {
      const row = await findInboundMedia(tx, key, true);
      if (!row || row.status !== 'pending') return;
      await settleInboundMedia(tx, key, status, { reason });
      await tellSender(tx, row, `Your ${whatOf(row.declared_type)} could not be added to "${row.title}": ${why} Your message itself was kept.`);
    });
  }

  /** The intake's or the book's refusal in words for the sender (an AppError's message is written for people). */
  const sayWhy = (err: AppError) => (/[.!?]$/.test(err.message) ? err.message : `${err.message}.`);

  return {
    /**
     * The job: fetch, stream in, attach. `lastAttempt`: a failure that
     * could pass on a retry (no connection, a 5xx) is final now.
     */
    async fetch(key: InboundMediaKey, o: { signal: AbortSignal; lastAttempt: boolean; log?: FastifyBaseLogger }): Promise<'attached' | 'refused' | 'failed' | 'settled'> {
      const row = await findInboundMedia(db, key);
      if (!row || row.status !== 'pending') return 'settled';
      const channel = CHANNEL[row.provider];
      let staged: StagedUpload;
      try {
        const file = await open(row, o.signal);
        try {
          staged = await media.stageChannelFile(row.slug, channel, {
            stream: file.stream,
            filename: row.filename ?? file.filename,
            declaredType: row.declared_type ?? file.contentType,
          });
        } finally {
          file.stream.destroy();
        }
      } catch (err) {
        if (err instanceof ProviderFileRefused) {
          o.log?.warn({ provider: key.provider, position: key.position, reason: err.reason }, 'inbound file refused');
          await giveUp(key, 'refused', err.reason, `${key.provider === 'twilio' ? 'the message service' : 'the provider'} did not hand it over.`);
          return 'refused';
        }
        if (err instanceof AppError && err.code !== 'request_timeout') {
          await giveUp(key, 'refused', `${err.code}: ${err.message}`, sayWhy(err));
          return 'refused';
        }
        if (!o.lastAttempt) throw err;
        await giveUp(key, 'failed', (err as Error)?.message ?? 'failed', 'it could not be downloaded.');
        return 'failed';
      }

      let attached = false;
      try {
        await db.transaction(async (tx) => {
          const locked = await findInboundMedia(tx, key, true);
          if (!locked || locked.status !== 'pending') return;
          // The book is locked first, as for every write in a book; then the memory.
          const ctx = await findOpenChannelBook(tx, row.slug, channel, 'update');
          const submission = ctx && (await findSubmissionInBook(tx, ctx.book.id, row.submission_id, { forUpdate: true }));
          if (!ctx || !submission) {
            await settleInboundMedia(tx, key, 'refused', { reason: 'the book or the memory is gone' });
            return;
          }
          const m = await media.attachStaged(tx, ctx, submission, staged, row.contributor_user_id);
          // The memory was recorded (submission.created) before its files came: it changed.
          await media.recordSubmissionUpdated(tx, ctx, submission.id);
          await settleInboundMedia(tx, key, 'attached', { mediaId: m.id });
          attached = true;
        });
      } catch (err) {
        await media.discardStaged(staged).catch(() => {});
        if (err instanceof AppError && err.code !== 'request_timeout') {
          await giveUp(key, 'refused', `${err.code}: ${err.message}`, sayWhy(err));
          return 'refused';
        }
        throw err;
      }
      if (!attached) {
        await media.discardStaged(staged).catch(() => {});
        return 'settled';
      }
      return 'attached';
    },
  };
}
export type ChannelMediaService = ReturnType<typeof createChannelMediaService>;
