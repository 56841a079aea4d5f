import type { MailMessage } from '../../mail/mailer.js';
import { hello, message } from '../mail-streams/mail-stream-messages.js';

/** An email address with most of its local part hidden: a••••@example.com. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 1) return '••••';
  return `${email[0]}••••${email.slice(at)}`;
}

/** A phone number with all but its last two digits hidden: +1•••••••67. */
export function maskPhone(phone: string): string {
  const digits = phone.replace(/\D/g, '');
  if (digits.length <= 4) return '••••';
  return `${phone.trim().startsWith('+') ? '+' : ''}${'•'.repeat(digits.length - 2)}${digits.slice(-2)}`;
}

export function reauthCodeMail(to: string, firstName: string, code: string, minutes: number): MailMessage {
  return message(
    to,
    'Your code to delete your Memory Book account',
    [
      hello(firstName),
      '',
      `Your code is ${code}. It works once, for ${minutes} minutes.`,
      '',
      'Someone signed in to your account asked to delete it, and entering this code confirms that it is you. If that was not you, do not share the code with anyone, and change your password.',
    ],
    'You are receiving this email because a deletion of your Memory Book account was requested.',
  );
}

export function reauthCodeSms(code: string, minutes: number): string {
  return `Memory Book: ${code} is your code to delete your account. It expires in ${minutes} minutes. Do not share it.`;
}
