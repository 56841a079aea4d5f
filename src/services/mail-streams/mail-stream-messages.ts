import { directionOf, type Language } from '../../lib/i18n/languages.js';
import { message as t, type MessageKey } from '../../lib/i18n/messages.js';
import type { MailMessage } from '../../mail/mailer.js';

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
/** Header values (the subject) stay on one line. */
const oneLine = (value: string) => value.replace(/[\r\n\t]+/g, ' ').trim();
export const hello = (firstName: string) => `Hello${firstName.trim() ? ` ${oneLine(firstName)}` : ''},`;
const paragraphsToHtml = (lines: string[]) =>
  lines
    .join('\n')
    .split(/\n{2,}/)
    .map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`)
    .join('\n');

/** A mail in the house look: the lines, then the footer saying why it came (also used by the account's own mail). */
export function message(to: string, subject: string, lines: string[], footer: string): MailMessage {
  const text = [...lines, '', '--', footer].join('\n');
  const html = `${paragraphsToHtml(lines)}\n<p style="color:#666;font-size:small">${escapeHtml(footer)}</p>`;
  return { to, subject: oneLine(subject), text, html };
}

const excerpt = (text: string, max = 200) => {
  const chars = [...text.replace(/\s+/g, ' ').trim()];
  return chars.length <= max ? chars.join('') : `${chars.slice(0, max).join('').trimEnd()}…`;
};

/** A web address in a mail's HTML part becomes a link, kept left to right inside right-to-left text. */
const linkify = (escaped: string) =>
  escaped.replace(/https?:\/\/[^\s<>"]+[^\s<>".,;:!?)]/g, (url) => `<a href="${url}" dir="ltr">${url}</a>`);

/**
 * An onboarding mail in the reader's language: the HTML part carries `lang`
 * and `dir` (right to left for Arabic and Hebrew) and its links, and the
 * mail says its language (`Content-Language`) as the invitation mail does.
 */
function onboardingMessage(lang: Language, to: string, subjectKey: MessageKey, bodyKey: MessageKey, firstName: string, o: { homeUrl: string; unsubscribeUrl: string }): MailMessage {
  const name = oneLine(firstName);
  const lines = [name ? t(lang, 'mail.greeting', { name }) : t(lang, 'mail.greetingNoName'), '', t(lang, bodyKey, { url: o.homeUrl }).trimEnd()];
  const footer = t(lang, 'mail.onboarding.footer', { url: o.unsubscribeUrl });
  const plain = message(to, t(lang, subjectKey), lines, footer);
  const body = `${paragraphsToHtml(lines)}\n<p style="color:#666;font-size:small">${escapeHtml(footer)}</p>`;
  return {
    ...plain,
    html: `<div lang="${lang}" dir="${directionOf(lang)}">\n${linkify(body)}\n</div>`,
    headers: { 'Content-Language': lang },
  };
}

/** The first onboarding mail, sent at sign-up: what a memory book is, and the contributor home (`/`) that lists the reader's books. */
export function welcomeMail(to: string, firstName: string, o: { publicUrl: string; unsubscribeUrl: string; language: Language }): MailMessage {
  return onboardingMessage(o.language, to, 'mail.welcome.subject', 'mail.welcome.body', firstName, { homeUrl: `${o.publicUrl}/`, unsubscribeUrl: o.unsubscribeUrl });
}

/** The follow-up a few days after sign-up: three ways to fill a book. */
export function onboardingFollowUpMail(to: string, firstName: string, o: { publicUrl: string; unsubscribeUrl: string; language: Language }): MailMessage {
  return onboardingMessage(o.language, to, 'mail.followUp.subject', 'mail.followUp.body', firstName, { homeUrl: `${o.publicUrl}/`, unsubscribeUrl: o.unsubscribeUrl });
}

export interface DigestBook {
  title: string;
  newCount: number;
  pendingCount: number;
  excerpts: { name: string | null; text: string }[];
}

export function digestMail(to: string, firstName: string, day: string, books: DigestBook[]): MailMessage {
  const total = books.reduce((n, b) => n + b.newCount, 0);
  const lines = [hello(firstName), '', `${total} new ${total === 1 ? 'memory' : 'memories'} arrived in your books on ${day}:`];
  for (const b of books) {
    lines.push('', `${oneLine(b.title)}: ${b.newCount} new${b.pendingCount ? `, ${b.pendingCount} waiting for approval` : ''}`);
    for (const e of b.excerpts) lines.push(`> ${e.name ? `${oneLine(e.name)}: ` : ''}${excerpt(e.text)}`);
  }
  return message(
    to,
    `Your memory books: ${total} new ${total === 1 ? 'memory' : 'memories'}`,
    lines,
    'You are receiving this daily digest because you own or help run these books. Stop it with POST /api/v1/me/unsubscribe/digests/.',
  );
}

export function activityReminderMail(to: string, firstName: string, o: { title: string; quietDays: number; contributeUrl: string }): MailMessage {
  const title = oneLine(o.title);
  return message(
    to,
    `No new memories in "${title}" for a while`,
    [
      hello(firstName),
      '',
      `"${title}" has had no new memory for ${o.quietDays} days or more. A short reminder to the people you invited often brings a few more in.`,
      '',
      `The link to share: ${o.contributeUrl}`,
    ],
    'You are receiving this because you own this book. Stop these reminders with POST /api/v1/me/unsubscribe/activity_reminders/.',
  );
}
