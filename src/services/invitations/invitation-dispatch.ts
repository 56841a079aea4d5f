import type { Config } from '../../config/config.js';
import type { Tx } from '../../db/client.js';
import type { JobSender } from '../../jobs/job-catalog.js';
import { addedMail, addedText, invitationMail, invitationSms, type InvitationFacts } from './invitation-messages.js';
import type { IdentifierType } from './invitation-types.js';

export interface DispatchInput {
  type: IdentifierType;
  /** The normalised identifier: the address, the E.164 number or the handle. */
  identifier: string;
  facts: InvitationFacts;
  /** The existing account the invitation was accepted for at once, with its Telegram chat when the bot knows one. */
  user: { telegram_chat_id: string | null } | null;
}

/**
 * Sends an invitation (or, when the invitee already had an account, the news
 * that they were added) over its own channel. Everything goes on the job
 * queue in the creating transaction: nothing is sent unless the invitation
 * commits, and no provider is ever called inside the request.
 *  - email: a mail with the acceptance link (or the "you were added" note);
 *  - phone: an SMS through the SMS provider, and a WhatsApp template
 *    message (WHATSAPP_INVITATION_TEMPLATE), for each one configured;
 *  - telegram: a bot cannot write first, so a pending invitation records a
 *    deep link for the inviter to pass on; a known chat gets a message.
 */
export function createInvitationDispatch(deps: { config: Config; queue: JobSender }) {
  const { config, queue } = deps;
  return async function dispatch(tx: Tx, d: DispatchInput): Promise<void> {
    const { facts } = d;
    switch (d.type) {
      case 'email':
        await queue.send('mail.send', facts.acceptUrl ? invitationMail(d.identifier, { ...facts, acceptUrl: facts.acceptUrl }) : addedMail(d.identifier, facts), { tx });
        return;
      case 'phone': {
        if (config.messaging.twilio) {
          await queue.send('sms.send', { to: d.identifier, body: facts.acceptUrl ? invitationSms({ ...facts, acceptUrl: facts.acceptUrl }) : addedText(facts) }, { tx });
        }
        // WhatsApp lets a business write first only with an approved template: {{1}} who invites, {{2}} the book, {{3}} the link.
        const wa = config.messaging.whatsapp;
        if (wa?.invitationTemplate) {
          const template = { name: wa.invitationTemplate, language: wa.templateLanguage, parameters: [facts.inviterName, facts.bookTitle, facts.acceptUrl ?? facts.homeUrl] };
          await queue.send('whatsapp.send', { to: d.identifier, template }, { tx });
        }
        return;
      }
      case 'telegram':
        if (!config.messaging.telegram || !d.user?.telegram_chat_id) return;
        await queue.send('telegram.send', { chat_id: d.user.telegram_chat_id, text: addedText(facts) }, { tx });
        return;
    }
  };
}
export type InvitationDispatch = ReturnType<typeof createInvitationDispatch>;
