import type { MailMessage } from '../../mail/mailer.js';

/** The mail streams a user can leave (the contract's Account and GDPR rule 1). */
export const MAIL_STREAMS = ['onboarding', 'digests', 'activity_reminders'] as const;
export type MailStream = (typeof MAIL_STREAMS)[number];
/** Streams whose mail carries a one-click unsubscribe link (rule 2: onboarding only). */
export const TOKEN_STREAMS: readonly MailStream[] = ['onboarding'];

export function isMailStream(value: string): value is MailStream {
  return (MAIL_STREAMS as readonly string[]).includes(value);
}

/** A stream message on the mail queue: the mail job drops it if its user left the stream meanwhile. */
export type StreamMail = MailMessage & { stream: MailStream; userId: string };
