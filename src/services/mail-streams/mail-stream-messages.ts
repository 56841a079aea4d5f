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

const ONBOARDING_FOOTER = 'You are receiving this because you signed up for Memory Book. To stop these tips: ';

export function welcomeMail(to: string, firstName: string, o: { publicUrl: string; unsubscribeUrl: string }): MailMessage {
  return message(
    to,
    'Welcome to Memory Book',
    [
      hello(firstName),
      '',
      'Welcome to Memory Book. A memory book gathers the stories, wishes and photos that friends and family send for one person or one occasion.',
      '',
      `To start, create a book and share its link: everyone you send it to can add a memory, no account needed. Developers can create an API key at ${o.publicUrl}/settings/tokens/ and use the API documented at ${o.publicUrl}/api/v1/docs.`,
    ],
    ONBOARDING_FOOTER + o.unsubscribeUrl,
  );
}

export function onboardingFollowUpMail(to: string, firstName: string, o: { publicUrl: string; unsubscribeUrl: string }): MailMessage {
  return message(
    to,
    'Three ways to fill your memory book',
    [
      hello(firstName),
      '',
      'A few days in, here is what makes books fill up:',
      '',
      '1. Share the book link in the family group chat, with a date by which memories should be in.\n2. Invite a co-organiser as an admin, so someone else can remind people and approve memories.\n3. Add the first memory yourself: people write more when they see an example.',
      '',
      `Your books and API keys: ${o.publicUrl}/settings/tokens/`,
    ],
    ONBOARDING_FOOTER + o.unsubscribeUrl,
  );
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
