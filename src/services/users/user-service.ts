import type { Db, Tx } from '../../db/client.js';
import { errors } from '../../errors.js';
import { uuidv7 } from '../../lib/ids.js';
import { hashPassword, passwordNeedsRehash, verifyPassword } from '../../lib/secrets.js';
import { assertIfMatch } from '../../lib/etag.js';
import { findUserByEmail, findUserById, findUserForUpdate, updatePasswordHash, insertUser, updateUserProfile } from './user-repository.js';
import { etagOf } from '../../lib/etag.js';
import type { UserRow } from './user-types.js';

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

export function createUserService(deps: { db: Db }) {
  const { db } = deps;
  return {
    /** Creates an account; 409 conflict when the email already has one. */
    async createUser(input: CreateUserInput): Promise<UserRow> {
      const email = normaliseEmail(input.email);
      if (!isValidEmail(email)) throw errors.validation('Enter a valid email address.', { field: 'email' });
      if (input.password !== null && input.password.length < 8) {
        throw errors.validation('The password must be at least 8 characters.', { field: 'password' });
      }
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
      const [row] = await db.query<{ n: string | number }>(`SELECT count(*) AS n FROM users`);
      return Number(row.n);
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
