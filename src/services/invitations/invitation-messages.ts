import { isLanguage, type Language } from '../../lib/i18n/languages.js';
import { message } from '../../lib/i18n/messages.js';
import { oneLine } from '../../lib/names.js';
import type { MailMessage } from '../../mail/mailer.js';

/** What every invitation message is written from. */
export interface InvitationFacts {
  bookTitle: string;
  inviterName: string;
  role: 'admin' | 'contributor';
  /** The acceptance page, with the invitation's token: only for pending invitations. */
  acceptUrl: string | null;
  expiresAt: string;
  /** Where an existing user finds the book once they are a member. */
  homeUrl: string;
  /** The book's language (settings.language): the mails are written in it; English when unset. */
  language?: string;
}

const languageOf = (f: InvitationFacts): Language => (isLanguage(f.language) ? f.language : 'en');

/** Names and titles as one line each: a line break stored in one never reaches a message. */
function clean<T extends InvitationFacts>(f: T): T {
  return { ...f, bookTitle: oneLine(f.bookTitle), inviterName: oneLine(f.inviterName) };
}

/**
 * The mail with the acceptance link, in the book's language (ICU messages of src/lib/i18n: the days left by
 * CLDR plural rules, the date in the language's own long form). `now` is when it is written.
 */
export function invitationMail(to: string, facts: InvitationFacts & { acceptUrl: string }, now = new Date()): MailMessage {
  const f = clean(facts);
  const lang = languageOf(f);
  const expires = new Date(f.expiresAt);
  const days = Math.max(1, Math.ceil((expires.getTime() - now.getTime()) / 86_400_000));
  const values = { inviter: f.inviterName, title: f.bookTitle, role: f.role, url: f.acceptUrl, days, expires };
  return {
    to,
    subject: message(lang, 'mail.invite.subject', values),
    text: message(lang, 'mail.invite.body', values),
    ...(lang !== 'en' ? { headers: { 'Content-Language': lang } } : {}),
  };
}

/** The news that someone with an account was added to a book, in the book's language. */
export function addedMail(to: string, facts: InvitationFacts): MailMessage {
  const f = clean(facts);
  const lang = languageOf(f);
  const values = { inviter: f.inviterName, title: f.bookTitle, role: f.role, url: f.homeUrl };
  return {
    to,
    subject: message(lang, 'mail.added.subject', values),
    text: message(lang, 'mail.added.body', values),
    ...(lang !== 'en' ? { headers: { 'Content-Language': lang } } : {}),
  };
}

/** SMS stays short: one or two segments. Replying with a memory accepts the invitation (inbound activation). */
export function invitationSms(facts: InvitationFacts & { acceptUrl: string }): string {
  const f = clean(facts);
  return message(languageOf(f), 'sms.invite', { inviter: f.inviterName, role: f.role, title: f.bookTitle, url: f.acceptUrl });
}

/** The news of being added, in the book's language, for SMS and Telegram. */
export function addedText(facts: InvitationFacts): string {
  const f = clean(facts);
  return message(languageOf(f), 'sms.added', { inviter: f.inviterName, title: f.bookTitle });
}
