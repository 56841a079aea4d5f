import type { Config } from '../../config/config.js';
import type { Db, Tx } from '../../db/client.js';
import { errors } from '../../errors.js';
import type { JobSender } from '../../jobs/job-catalog.js';
import { uuidv7 } from '../../lib/ids.js';
import { isLanguage } from '../../lib/i18n/languages.js';
import { hasControlCharacters } from '../../lib/names.js';
import { hashPassword, passwordNeedsRehash, randomToken, sha256, verifyPassword } from '../../lib/secrets.js';
import { assertIfMatch } from '../../lib/etag.js';
import {
  countUsers as countUsersIn,
  deleteSignupRequests,
  findSignupRequest,
  findUserByEmail,
  findUserById,
  findUserForUpdate,
  insertSignupRequest,
  insertUser,
  updatePasswordHash,
  updateUserProfile,
} from './user-repository.js';
import { confirmSignupMail, signupAttemptMail } from './signup-messages.js';
import { etagOf } from '../../lib/etag.js';
import type { UserRow } from './user-types.js';

/** For other domains, in their own transaction: an account by id, and whether one exists (not deleted) or is not purged yet. */
export { findUserByEmail, findUserById, isLiveUser, isUnpurgedUser, lockUserRow } from './user-repository.js';

export interface CreateUserInput {
  email: string;
  password: string | null;
  firstName?: string;
  lastName?: string;
  isStaff?: boolean;
}

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function isValidEmail(email: string): boolean {
  return email.length <= 254 && EMAIL_RE.test(email);
}

/** How long a sign-up's confirmation link works. */
export const SIGNUP_CONFIRM_HOURS = 48;
const MAX_NAME_LENGTH = 150;
/** Confirmation tokens as requestSignUp makes them (randomToken(32), base64url). */
const TOKEN_RE = /^[A-Za-z0-9_-]{20,128}$/;

/** The checks every new account's input passes, whoever creates it (400 validation_failed, naming the field). */
function checkNewAccount(input: CreateUserInput): string {
  const email = normaliseEmail(input.email);
  if (!isValidEmail(email)) throw errors.validation('Enter a valid email address.', { field: 'email' });
  if (input.password !== null && input.password.length < 8) {
    throw errors.validation('The password must be at least 8 characters.', { field: 'password' });
  }
  for (const [field, value] of [['first_name', input.firstName], ['last_name', input.lastName]] as const) {
    if (value === undefined) continue;
    if (value.length > MAX_NAME_LENGTH) throw errors.validation(`Names may be at most ${MAX_NAME_LENGTH} characters.`, { field });
    if (hasControlCharacters(value)) throw errors.validation('Names may not contain line breaks or other control characters.', { field, reason: 'control_characters' });
  }
  return email;
}

/**
 * Creates a confirmed account at once; 409 conflict when the email already has
 * one. Needs only the database (test and bench set-up call it directly).
 */
export async function createUserAccount(db: Db, input: CreateUserInput): Promise<UserRow> {
  const email = checkNewAccount(input);
  const passwordHash = input.password === null ? null : await hashPassword(input.password);
  // A taken email is 409 conflict, translated from users_email_key by the database layer.
  return insertUser(db, {
    id: uuidv7(),
    email,
    passwordHash,
    firstName: input.firstName ?? '',
    lastName: input.lastName ?? '',
    isStaff: input.isStaff ?? false,
  });
}

export function createUserService(deps: { db: Db; config: Config; queue: JobSender }) {
  const { db, config, queue } = deps;
  return {
    /**
     * Creates a confirmed account at once (the operator's CLI and demo, and a
     * sign-up from an email invitation whose link proved the address); 409
     * conflict when the email already has one.
     */
    createUser(input: CreateUserInput): Promise<UserRow> {
      return createUserAccount(db, input);
    },

    /**
     * A sign-up from the public page: nothing is created until the address is
     * confirmed. A new address gets a mail with the confirmation link; an
     * address that already has an account gets a note saying someone tried,
     * instead. Either way the caller answers the same (no enumeration), and
     * both ways cost one password hash. The mail is written in
     * `language` (the sign-up page's, for that request; English when unset). `mailAllowed` false (the address had
     * its share of mail for now) sends nothing, still answering the same.
     * 400 validation_failed for input that could never make an account.
     */
    async requestSignUp(input: CreateUserInput & { password: string; nextPath: string | null; mailAllowed: boolean; language?: string }): Promise<void> {
      const email = checkNewAccount(input);
      const passwordHash = await hashPassword(input.password);
      const base = config.http.publicUrl;
      await db.transaction(async (tx) => {
        const existing = await findUserByEmail(tx, email);
        if (existing) {
          if (input.mailAllowed) await queue.send('mail.send', signupAttemptMail(email, { signInUrl: `${base}/accounts/login/`, language: input.language }), { tx });
          return;
        }
        const token = randomToken(32);
        await insertSignupRequest(tx, {
          id: uuidv7(),
          email,
          passwordHash,
          firstName: input.firstName ?? '',
          lastName: input.lastName ?? '',
          nextPath: input.nextPath,
          tokenHash: sha256(token),
          ttlSeconds: SIGNUP_CONFIRM_HOURS * 3600,
        });
        if (input.mailAllowed) {
          // The link carries the page's language: the confirmation page, and the onboarding mails it starts, stay in it on any device.
          const confirmUrl = `${base}/accounts/confirm/${token}/${isLanguage(input.language) ? `?lang=${input.language}` : ''}`;
          await queue.send('mail.send', confirmSignupMail(email, { confirmUrl, validHours: SIGNUP_CONFIRM_HOURS, language: input.language }), { tx });
        }
      });
    },

    /** The address a live confirmation link is for; 404 not_found for anything else. */
    async viewSignUp(token: string): Promise<{ email: string }> {
      const row = TOKEN_RE.test(token) ? await findSignupRequest(db, sha256(token)) : undefined;
      if (!row) throw errors.notFound('sign-up');
      return { email: row.email };
    },

    /**
     * Confirms a sign-up: the link proves the address, the password (the one
     * chosen at sign-up) proves it is the same person, so an address's owner
     * who follows a link they did not ask for cannot end up in an account
     * someone else holds the password of. Creates the account and voids the
     * address's other waiting sign-ups. 404 not_found for an unknown or
     * expired link; 400 validation_failed for a wrong password (the link
     * stays usable); 409 conflict when the address got an account meanwhile.
     */
    async confirmSignUp(token: string, password: string): Promise<{ user: UserRow; nextPath: string | null }> {
      if (!TOKEN_RE.test(token)) throw errors.notFound('sign-up');
      const tokenHash = sha256(token);
      const first = await findSignupRequest(db, tokenHash);
      if (!first) throw errors.notFound('sign-up');
      // Hashing happens outside the transaction; the row is read again under its lock below.
      if (!(await verifyPassword(password, first.password_hash))) {
        throw errors.validation('That is not the password you chose when you signed up.', { field: 'password' });
      }
      return db.transaction(async (tx) => {
        const row = await findSignupRequest(tx, tokenHash, { forUpdate: true });
        if (!row) throw errors.notFound('sign-up');
        if (await findUserByEmail(tx, row.email)) {
          await deleteSignupRequests(tx, row.email);
          throw errors.conflict('This address already has an account: sign in instead.', null);
        }
        const user = await insertUser(tx, {
          id: uuidv7(),
          email: row.email,
          passwordHash: row.password_hash,
          firstName: row.first_name,
          lastName: row.last_name,
          isStaff: false,
        });
        await deleteSignupRequests(tx, row.email);
        return { user, nextPath: row.next_path };
      });
    },

    /** Housekeeping: drops sign-ups whose link has expired. */
    async pruneSignUps(): Promise<number> {
      return deleteSignupRequests(db, null);
    },

    /**
     * The active user with this email and password, or undefined. Unknown emails
     * and password-less accounts still run one argon2id (verifyPassword's dummy
     * hash), so timing does not tell which emails have accounts. A hash in an
     * older format or with weaker parameters is replaced now, while the password
     * is at hand.
     */
    async checkPassword(email: string, password: string): Promise<UserRow | undefined> {
      const user = await findUserByEmail(db, normaliseEmail(email));
      const stored = user?.password_hash;
      const ok = await verifyPassword(password, stored);
      if (!ok || !user || !user.is_active || !stored) return undefined;
      if (passwordNeedsRehash(stored)) await updatePasswordHash(db, user.id, await hashPassword(password), stored);
      return user;
    },

    findByEmail(email: string): Promise<UserRow | undefined> {
      return findUserByEmail(db, normaliseEmail(email));
    },

    /** How many accounts the database holds, deactivated and scrubbed ones included (`memorybook demo` wants an empty one). */
    async countUsers(): Promise<number> {
      return countUsersIn(db);
    },

    async getUser(userId: string): Promise<UserRow> {
      const user = await findUserById(db, userId);
      if (!user) throw errors.notFound('user');
      return user;
    },

    /** Applies a profile patch under an optional If-Match, atomically with the check. */
    async updateProfile(tx: Tx, 
      userId: string,
      patch: { first_name?: string; last_name?: string; books_sort?: string },
      ifMatch: string | undefined,
    ): Promise<UserRow> {
      const current = await findUserForUpdate(tx, userId);
      if (!current) throw errors.notFound('user');
      assertIfMatch(ifMatch, etagOf(current.updated_at));
      if (Object.keys(patch).length === 0) return current;
      return updateUserProfile(tx, userId, patch);
    },
  };
}
export type UserService = ReturnType<typeof createUserService>;
