import type { MailMessage } from '../../mail/mailer.js';

/** A new memory, as a notification tells of it. */
export interface NewMemoryFacts {
  bookTitle: string;
  bookSlug: string;
  from: string;
  source: string;
  text: string;
  subscriptionId: string;
}

/** One book's day, as a digest tells of it. */
export interface DigestFacts {
  bookTitle: string;
  bookSlug: string;
  /** The UTC day the memories arrived on (YYYY-MM-DD). */
  day: string;
  newCount: number;
  pendingCount: number;
  excerpts: { from: string; text: string }[];
  subscriptionId: string;
}

const VIA: Record<string, string> = { api: 'through the API', web: 'on the web form', email: 'by email', sms: 'by SMS', telegram: 'on Telegram' };
const via = (source: string) => VIA[source] ?? `over ${source}`;

/** At most `max` characters, cut at a word where one is near, with an ellipsis. */
export function excerpt(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > max * 0.6 ? cut.slice(0, space) : cut}…`;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
const stopHint = (slug: string, id: string) =>
  `You get this because you subscribed to this book's notifications. To stop: DELETE /api/v1/books/${slug}/notifications/subscriptions/${id}/`;

export function newMemoryMail(to: string, f: NewMemoryFacts): MailMessage {
  return {
    to,
    subject: `New memory in "${f.bookTitle}"`,
    text:
      `${f.from} sent a memory to "${f.bookTitle}" ${via(f.source)}:\n\n` +
      `${excerpt(f.text, 1000)}\n\n` +
      `It is waiting for moderation.\n\n${stopHint(f.bookSlug, f.subscriptionId)}\n`,
  };
}

/** SMS and Telegram: one or two SMS segments. */
export function newMemoryText(f: NewMemoryFacts): string {
  return `New memory in "${excerpt(f.bookTitle, 40)}" from ${excerpt(f.from, 30)}: ${excerpt(f.text, 120)}`;
}

export function digestMail(to: string, f: DigestFacts): MailMessage {
  const lines = f.excerpts.map((e) => `- ${e.from}: ${excerpt(e.text, 200)}`).join('\n');
  const more = f.newCount > f.excerpts.length ? `\n…and ${f.newCount - f.excerpts.length} more.` : '';
  return {
    to,
    subject: `"${f.bookTitle}" on ${f.day}: ${plural(f.newCount, 'new memory', 'new memories')}`,
    text:
      `${plural(f.newCount, 'memory', 'memories')} arrived in "${f.bookTitle}" on ${f.day} (UTC); ` +
      `${f.pendingCount} of them ${f.pendingCount === 1 ? 'is' : 'are'} still waiting for moderation.\n\n` +
      `${lines}${more}\n\n${stopHint(f.bookSlug, f.subscriptionId)}\n`,
  };
}

export function digestText(f: DigestFacts): string {
  return `"${excerpt(f.bookTitle, 40)}" on ${f.day}: ${plural(f.newCount, 'new memory', 'new memories')}, ${f.pendingCount} waiting for moderation.`;
}
