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
}

const roleText = (role: InvitationFacts['role']) => (role === 'admin' ? 'help run' : 'add your memories to');
const day = (iso: string) => new Date(iso).toUTCString().slice(5, 16);

/** Names and titles as one line each: a line break stored in one never reaches a message. */
function clean<T extends InvitationFacts>(f: T): T {
  return { ...f, bookTitle: oneLine(f.bookTitle), inviterName: oneLine(f.inviterName) };
}

export function invitationMail(to: string, facts: InvitationFacts & { acceptUrl: string }): MailMessage {
  const f = clean(facts);
  return {
    to,
    subject: `${f.inviterName} invited you to "${f.bookTitle}"`,
    text:
      `${f.inviterName} invited you to ${roleText(f.role)} the memory book "${f.bookTitle}".\n\n` +
      `Accept the invitation here:\n${f.acceptUrl}\n\n` +
      `The link works until ${day(f.expiresAt)}. If you did not expect this invitation, you can ignore this message.\n`,
  };
}

export function addedMail(to: string, facts: InvitationFacts): MailMessage {
  const f = clean(facts);
  return {
    to,
    subject: `You were added to "${f.bookTitle}"`,
    text:
      `${f.inviterName} added you as ${f.role === 'admin' ? 'an admin' : 'a contributor'} of the memory book "${f.bookTitle}".\n\n` +
      `Sign in to find it among your books: ${f.homeUrl}\n`,
  };
}

/** SMS stays short: one or two segments. Replying with a memory accepts the invitation (inbound activation). */
export function invitationSms(facts: InvitationFacts & { acceptUrl: string }): string {
  const f = clean(facts);
  return `${f.inviterName} invited you to ${roleText(f.role)} "${f.bookTitle}" on Memory Book. Reply with a memory to join, or open ${f.acceptUrl}`;
}

export function addedText(facts: InvitationFacts): string {
  const f = clean(facts);
  return `${f.inviterName} added you to "${f.bookTitle}" on Memory Book. Send a memory here any time.`;
}
