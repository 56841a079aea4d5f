import type { MailMessage } from '../../mail/mailer.js';

const EXCERPT_LENGTH = 300;
const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);

/** Header values must stay on one line. */
function oneLine(value: string): string {
  return value.replace(/[\r\n\t]+/g, ' ').trim();
}

function excerpt(text: string): string {
  const chars = [...text.trim()];
  return chars.length <= EXCERPT_LENGTH ? chars.join('') : `${chars.slice(0, EXCERPT_LENGTH).join('').trimEnd()}…`;
}

/**
 * The email telling a contributor their memory was not accepted, with the
 * moderator's reason (the contract's rejection notification). Pure: the
 * caller decides whether there is anyone to send it to and enqueues it.
 */
export function rejectionMessage(
  submission: { contributor_email: string; contributor_name: string | null; text_content: string },
  book: { title: string },
  reason: string | null,
): MailMessage {
  const title = oneLine(book.title);
  const name = oneLine(submission.contributor_name ?? '') || null;
  const quoted = excerpt(submission.text_content);
  const reasonLine = reason ? `The reason given: ${reason}` : 'No reason was given.';
  const text = [
    `Hello${name ? ` ${name}` : ''},`,
    '',
    `Thank you for sending a memory to "${title}". The book's organisers decided not to include it.`,
    '',
    reasonLine,
    '',
    'Your memory:',
    ...quoted.split('\n').map((l) => `> ${l}`),
    '',
    'You are receiving this email because you sent a memory to this book.',
  ].join('\n');
  const paragraphs = (s: string) => escapeHtml(s).replace(/\n/g, '<br>');
  const html = [
    `<p>Hello${name ? ` ${escapeHtml(name)}` : ''},</p>`,
    `<p>Thank you for sending a memory to “${escapeHtml(title)}”. The book's organisers decided not to include it.</p>`,
    reason ? `<p>The reason given: ${paragraphs(reason)}</p>` : '<p>No reason was given.</p>',
    `<p>Your memory:</p><blockquote>${paragraphs(quoted)}</blockquote>`,
    '<p style="color:#666;font-size:small">You are receiving this email because you sent a memory to this book.</p>',
  ].join('\n');
  return { to: submission.contributor_email, subject: oneLine(`Your memory for "${title}" was not included`), text, html };
}
