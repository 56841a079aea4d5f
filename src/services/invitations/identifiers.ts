import type { CountryCode } from 'libphonenumber-js/max';
import { errors } from '../../errors.js';
import { phoneNumbers } from '../../lib/phone-numbers.js';
import type { IdentifierType } from './invitation-types.js';

// Deliberately plain: one @, no spaces, a dot in the domain. Deliverability is the mail's business.
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
// Telegram usernames: 5 to 32 characters, letters, digits and underscores, starting with a letter.
const TELEGRAM_RE = /^[a-z][a-z0-9_]{4,31}$/;

function invalid(type: IdentifierType, why: string) {
  return errors.validation(`The identifier is not a valid ${type === 'email' ? 'email address' : type === 'phone' ? 'phone number' : 'Telegram username'}: ${why}`, {
    field: 'identifier',
    identifier_type: type,
  });
}

/**
 * One identifier, one spelling: emails lower-cased, phones in E.164 (a number
 * without a country code is read in `phoneRegion`), Telegram handles without
 * a leading @ and lower-cased. So the same person invited twice is the same
 * row, and inbound messages find their invitation. Invalid: 400 validation_failed.
 */
export function normaliseIdentifier(type: IdentifierType, raw: string, phoneRegion: string): string {
  const value = raw.trim();
  switch (type) {
    case 'email': {
      const email = value.toLowerCase();
      if (email.length > 254 || !EMAIL_RE.test(email)) throw invalid(type, 'expected name@domain.');
      return email;
    }
    case 'phone': {
      const phone = phoneNumbers().parsePhoneNumberFromString(value, phoneRegion as CountryCode);
      if (!phone || !phone.isValid()) throw invalid(type, `expected a number in international form (+<country code>…) or one valid in ${phoneRegion}.`);
      return phone.number;
    }
    case 'telegram': {
      const handle = value.replace(/^@/, '').toLowerCase();
      if (!TELEGRAM_RE.test(handle)) throw invalid(type, 'expected 5 to 32 letters, digits or underscores, starting with a letter.');
      return handle;
    }
  }
}
