import { createRequire } from 'node:module';

type PhoneNumbers = typeof import('libphonenumber-js/max');
let loaded: PhoneNumbers | undefined;

/**
 * libphonenumber with its full metadata, loaded on first use: it is a
 * hundred modules and about 80 ms of a start, and most starts never read a
 * phone number. Loaded synchronously, so callers stay synchronous.
 */
export function phoneNumbers(): PhoneNumbers {
  return (loaded ??= createRequire(import.meta.url)('libphonenumber-js/max') as PhoneNumbers);
}
