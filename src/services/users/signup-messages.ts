import type { MailMessage } from '../../mail/mailer.js';

/** The link that confirms a new address; the account exists once it is used. */
export function confirmSignupMail(to: string, o: { confirmUrl: string; validHours: number }): MailMessage {
  return {
    to,
    subject: 'Confirm your email address for Memory Book',
    text:
      `Someone (we hope you) asked for a Memory Book account with this address.\n\n` +
      `To confirm it, open this link and enter the password you chose:\n${o.confirmUrl}\n\n` +
      `The link works for ${o.validHours} hours. If you did not ask for an account, ignore this message: nothing is created without it.\n`,
  };
}

/** Sent instead of a confirmation when the address already has an account: the sign-up page answers the same either way. */
export function signupAttemptMail(to: string, o: { signInUrl: string }): MailMessage {
  return {
    to,
    subject: 'Someone tried to sign up with your address',
    text:
      `Someone tried to create a Memory Book account with this address, which already has one. No new account was made.\n\n` +
      `If it was you, sign in here:\n${o.signInUrl}\n\n` +
      `If you have forgotten your password, ask the operator of this Memory Book to reset it. If it was not you, you can ignore this message.\n`,
  };
}
