import type { MailMessage } from '../../mail/mailer.js';
import { hello, message } from '../mail-streams/mail-stream-messages.js';
import type { EndpointRow } from './endpoint-repository.js';

/** To the endpoint's owner, when deliveries to it stopped: why, and how to turn it back on. */
export function endpointDisabledMail(owner: { email: string; first_name: string }, endpoint: Pick<EndpointRow, 'id' | 'url'>, reason: 'gone' | 'failing', lastError: string | null, publicUrl: string): MailMessage {
  const why =
    reason === 'gone'
      ? 'It answered 410 Gone, which asks us to stop sending.'
      : `Every attempt to deliver an event to it failed for about 28 hours${lastError ? ` (last: ${lastError})` : ''}.`;
  return message(
    owner.email,
    'A webhook endpoint was disabled',
    [
      hello(owner.first_name),
      '',
      `Memory Book stopped sending events to your webhook endpoint ${endpoint.url}. ${why}`,
      '',
      `Events keep being recorded (GET ${publicUrl}/api/v1/events/, for 30 days). Once the endpoint works again, turn it back on with PATCH ${publicUrl}/api/v1/webhook_endpoints/${endpoint.id}/ and {"status": "enabled"}.`,
    ],
    'You are receiving this because you created this webhook endpoint.',
  );
}
