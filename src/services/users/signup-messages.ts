import { isLanguage, type Language } from '../../lib/i18n/languages.js';
import { message } from '../../lib/i18n/messages.js';
import type { MailMessage } from '../../mail/mailer.js';

/** The language the sign-up page was shown in (it chose it for that request); English when none. */
const languageOf = (language: unknown): Language => (isLanguage(language) ? language : 'en');

/** A mail in `lang`, saying which (`Content-Language`) as the invitation mail does. */
function mailIn(lang: Language, to: string, subject: string, text: string): MailMessage {
  return { to, subject, text, ...(lang !== 'en' ? { headers: { 'Content-Language': lang } } : {}) };
}

/** The link that confirms a new address; the account exists once it is used. In the sign-up page's language (hours by CLDR plurals). */
export function confirmSignupMail(to: string, o: { confirmUrl: string; validHours: number; language?: unknown }): MailMessage {
  const lang = languageOf(o.language);
  const values = { url: o.confirmUrl, hours: o.validHours };
  return mailIn(lang, to, message(lang, 'mail.signup.subject', values), message(lang, 'mail.signup.body', values));
}

/** Sent instead of a confirmation when the address already has an account: the sign-up page answers the same either way. */
export function signupAttemptMail(to: string, o: { signInUrl: string; language?: unknown }): MailMessage {
  const lang = languageOf(o.language);
  const values = { url: o.signInUrl };
  return mailIn(lang, to, message(lang, 'mail.attempt.subject', values), message(lang, 'mail.attempt.body', values));
}
