import type { Config } from '../../config/config.js';
import type { Db, Tx } from '../../db/client.js';
import { errors } from '../../errors.js';
import type { JobSender } from '../../jobs/job-catalog.js';
import { verifyPassword } from '../../lib/secrets.js';
import type { AuditService } from '../audit/audit-service.js';
import { recordEvent } from '../events/record-event.js';
import { deleteEndpointsOfUser } from '../webhook-endpoints/endpoint-service.js';
import { createBackupEraser } from '../books/backup-eraser.js';
import { DELETION_RETRY_AFTER_SECONDS, type BookDeletion, type DeletionOutcome } from '../books/book-deletion.js';
import type { SubmissionService } from '../submissions/submission-service.js';
import type { TokenService } from '../tokens/token-service.js';
import { deleteUnsubscribeTokens, deleteUserStreamData } from '../mail-streams/mail-stream-service.js';
import { findUserById } from '../users/user-service.js';
import { IDEMPOTENCY_TTL_SECONDS } from '../idempotency/idempotency-ttl.js';
import {
  answerDeletionKeys,
  rememberDeletionKey,
  deleteUserHistory,
  endWebSessions,
  findAccountsAwaitingErasure,
  findAccountsAwaitingPurge,
  markPurged,
  findDeletionState,
  findJoinedBookIds,
  findOwnedBookIds,
  markDeletionRequested,
  scrubUser,
} from './account-repository.js';
import { maskEmail, maskPhone, reauthCodeMail, reauthCodeSms } from './account-messages.js';
import { createReauthStore, REAUTH_CODE_SECONDS, type CodeChannel } from './reauth-store.js';

/** For the account export, in its transaction: where the account's deletion stands. */
export { findDeletionState } from './account-repository.js';

export interface AccountServiceDeps {
  db: Db;
  config: Pick<Config, 'secretKey' | 'backupErasureUrl' | 'backupErasureRetrySeconds' | 'messaging'>;
  queue: JobSender;
  tokens: TokenService;
  audit: AuditService;
  bookDeletion: BookDeletion;
  submissions: Pick<SubmissionService, 'eraseAuthoredBy'>;
  /** Removes the user's data exports and queues their files' removal (in the purge's transaction). */
  releaseExports?: (q: Tx, userId: string) => Promise<void>;
  /** Cancels the user's paid subscriptions and removes their billing provider's rows (in the purge's transaction). */
  forgetBilling?: (tx: Tx, userId: string) => Promise<void>;
}

const reauthRequired = () =>
  errors.reauthRequired(
    'Deleting the account needs a fresh step-up: POST /me/delete/reauth/ with your password or a one-time code, then send its reauth_token here (a browser session may send {password} instead). A grant works once, for five minutes.',
  );
/** What deletion's first phase established: the backups' erasure, and a password already checked (a browser session's step-up). */
export type AccountErasure = { erased: boolean } & (
  | { stepUp: 'grant'; grantId: string }
  | { stepUp: 'password' }
  /** No step-up was taken: the account was already gone. */
  | { stepUp: 'none' }
);

/** What POST /me/delete/ answers once the account is deleted; also the answer a 202's retry key replays (see answerDeletionKeys). */
export const ACCOUNT_DELETED = { status: 'deleted' } as const;
const DELETED_ANSWER = {
  status: 200,
  headers: { 'content-type': 'application/json; charset=utf-8' },
  body: JSON.stringify(ACCOUNT_DELETED),
  ttlSeconds: IDEMPOTENCY_TTL_SECONDS,
};

const invalidCredentials = () => errors.invalidCredentials('The password or code is not correct.');

/** Account self-service: what a signed-in user does to their own credentials and data. */
export function createAccountService(deps: AccountServiceDeps) {
  const { db, tokens, audit } = deps;
  const reauth = createReauthStore({ secretKey: deps.config.secretKey });
  const eraser = createBackupEraser(deps.config);


  async function passwordMatches(userId: string, password: string): Promise<boolean> {
    const user = await findUserById(db, userId);
    // A password-less account still costs one argon2id run (verifyPassword's dummy hash).
    return (await verifyPassword(password, user?.password_hash)) && user !== undefined;
  }

  /**
   * The part of deletion that happens at once: personal data off the user
   * row (a unique tombstone email, so the address can sign up again), every
   * key revoked and session ended, and the purge queued. False when the
   * account was already gone.
   */
  async function finalize(q: Tx, userId: string, requestId: string | null): Promise<boolean> {
    if (!(await scrubUser(q, userId))) return false;
    // The account's webhook endpoints go with it: nothing more is sent on its behalf.
    await deleteEndpointsOfUser(q, userId);
    // It leaves the member lists of other people's books now (the rows go with the purge): their owners hear of it.
    for (const bookId of await findJoinedBookIds(q, userId)) await recordEvent(q, 'member.removed', bookId, { id: userId, user_id: userId });
    await tokens.revokeAllTokens(q, userId);
    await endWebSessions(q, userId);
    await reauth.forget(q, userId);
    await deleteUnsubscribeTokens(q, userId);
    await audit.record('account_deleted', { userId, requestId }, q);
    await answerDeletionKeys(q, userId, DELETED_ANSWER);
    await deps.queue.send('account.purge', { userId }, { tx: q });
    return true;
  }

  return {
    /**
     * Revokes every API key the user holds (the calling one included; browser
     * sessions stay) and records `api_sessions_revoked` in the same transaction.
     */
    async revokeAllTokens(tx: Tx, actor: { id: string }, o: { requestId: string; authMethod: string }) {
      const revoked_count = await tokens.revokeAllTokens(tx, actor.id);
      await audit.record('api_sessions_revoked', { userId: actor.id, requestId: o.requestId, data: { revoked_count, auth_method: o.authMethod } }, tx);
      return { revoked_count };
    },

    /**
     * Step-up for deletion: the password, or the code from `sendReauthCode`,
     * buys a single-use grant for five minutes. A wrong secret is 403
     * invalid_credentials (a wrong code also uses one of its five attempts).
     * The route counts the tries (five per 15 minutes) before this runs.
     */
    async reauthenticate(actor: { id: string }, secret: { password?: string; otp?: string }) {
      if (secret.password !== undefined) {
        if (!(await passwordMatches(actor.id, secret.password))) throw invalidCredentials();
        return reauth.issueGrant(db, actor.id);
      }
      // The attempt is committed whether or not the code matches.
      const grant = await db.transaction(async (tx) => ((await reauth.useCode(tx, actor.id, secret.otp ?? '')) ? reauth.issueGrant(tx, actor.id) : null));
      if (!grant) throw invalidCredentials();
      return grant;
    },

    /**
     * Sends a six-digit code for the step-up to the user's own address or
     * phone: email through the mail queue, SMS through the SMS queue. A new
     * code replaces any earlier one.
     */
    async sendReauthCode(actor: { id: string }, channel: CodeChannel) {
      const user = await findUserById(db, actor.id);
      if (!user) throw errors.unauthorized();
      if (channel === 'sms') {
        if (!user.phone_number) throw errors.validation('Your account has no phone number; ask for the code by email.', { field: 'channel', value: 'sms' });
        if (!deps.config.messaging.twilio) throw errors.validation('SMS is not available on this service; ask for the code by email.', { field: 'channel', value: 'sms' });
      }
      const minutes = REAUTH_CODE_SECONDS / 60;
      return db.transaction(async (tx) => {
        const { code, expires_in } = await reauth.issueCode(tx, user.id, channel);
        if (channel === 'sms') {
          await deps.queue.send('sms.send', { to: user.phone_number!, body: reauthCodeSms(code, minutes) }, { tx });
          return { channel, sent_to: maskPhone(user.phone_number!), expires_in };
        }
        await deps.queue.send('mail.send', reauthCodeMail(user.email, user.first_name, code, minutes), { tx });
        return { channel, sent_to: maskEmail(user.email), expires_in };
      });
    },

    /**
     * Deletion's first phase, holding no transaction while it waits: the
     * step-up (a grant from the reauth route, spent here, or on a browser
     * session the password; anything else is 403 reauth_required), the
     * recovery point, then the operator's endpoint is asked to erase the
     * account's off-site backups (up to 5 s; asking twice is harmless).
     * Then `deleteAccount`.
     */
    async prepareDeletion(
      actor: { id: string },
      input: { reauthToken?: string; password?: string },
      o: { authMethod: 'api_key' | 'session' },
    ): Promise<AccountErasure> {
      if (input.reauthToken === undefined) {
        if (input.password === undefined || o.authMethod !== 'session') throw reauthRequired();
        if (!(await passwordMatches(actor.id, input.password))) throw invalidCredentials();
      }
      // The recovery point, committed on its own: the grant spent, the deletion recorded as requested
      // and its erase-backup job queued (after the retry delay), so a request cut off from here on
      // still ends in the deletion the owner stepped up for.
      const grantId = await db.transaction(async (tx) => {
        const locked = await findDeletionState(tx, actor.id, { forUpdate: true });
        if (!locked || locked.deleted_at) {
          // Gone already: done, for the request whose grant was given back with a 202 (the queue finished the
          // deletion). A grant spent by another request (two at once with one grant) is refused like any other.
          if (input.reauthToken === undefined || !(await reauth.spendGrant(tx, actor.id, input.reauthToken))) throw reauthRequired();
          return null;
        }
        let spent: string | undefined;
        if (input.reauthToken !== undefined) {
          spent = await reauth.spendGrant(tx, actor.id, input.reauthToken);
          if (!spent) throw reauthRequired();
        }
        await markDeletionRequested(tx, actor.id);
        const retry = deps.config.backupErasureRetrySeconds;
        await deps.queue.send('account.erase-backup', { userId: actor.id }, { tx, startAfterSeconds: retry, retryDelaySeconds: retry });
        return spent ?? '';
      });
      if (grantId === null) return { erased: true, stepUp: 'none' };
      const erased = await eraser.erase({ kind: 'user', id: actor.id });
      return grantId ? { erased, stepUp: 'grant', grantId } : { erased, stepUp: 'password' };
    },

    async deleteAccount(
      tx: Tx,
      actor: { id: string },
      o: { requestId: string; /** The Idempotency-Key the request came with: a 202's retry comes with it. */ idempotency?: { key: string; fingerprint: string } },
      erasure: AccountErasure,
    ): Promise<DeletionOutcome> {
      // The user row's lock orders this request with the queue's finishing of an earlier 202: a
      // deletion the queue completed while this retry was on its way is simply done.
      const current = await findDeletionState(tx, actor.id, { forUpdate: true });
      if (!current || current.deleted_at) return { state: 'deleted' } as const;
      if (erasure.stepUp === 'none') throw reauthRequired();

      if (erasure.erased) {
        await finalize(tx, actor.id, o.requestId);
        return { state: 'deleted' } as const;
      }
      if (erasure.stepUp === 'grant') await reauth.restoreGrant(tx, erasure.grantId);
      await markDeletionRequested(tx, actor.id);
      await deps.queue.send('account.erase-backup', { userId: actor.id }, { tx, retryDelaySeconds: deps.config.backupErasureRetrySeconds });
      // Should the queue finish first, the retry finds the deletion's answer under its key (its own key is revoked by then).
      if (o.idempotency) await rememberDeletionKey(tx, actor.id, o.idempotency);
      return { state: 'queued', retryAfterSeconds: DELETION_RETRY_AFTER_SECONDS } as const;
    },

    /** The erase-backup job: true once erasure is confirmed and the account deleted (or there is nothing to do). */
    async completeErasure(userId: string): Promise<boolean> {
      const user = await findDeletionState(db, userId);
      if (!user || user.deleted_at || !user.deletion_requested_at) return true;
      if (!(await eraser.erase({ kind: 'user', id: userId }))) return false;
      await db.transaction((tx) => finalize(tx, userId, null));
      return true;
    },

    /**
     * The sweep (hourly): queues the backup erasure of every account whose
     * deletion still waits for it, unless one is pending; so an erasure is
     * retried for as long as the endpoint refuses.
     */
    async resumeErasures(): Promise<number> {
      const owed = await findAccountsAwaitingErasure(db);
      let queued = 0;
      for (const userId of owed) {
        if (await deps.queue.send('account.erase-backup', { userId }, { unlessPending: true, retryDelaySeconds: deps.config.backupErasureRetrySeconds })) queued++;
      }
      return queued;
    },

    /**
     * The rest of a deletion, on the queue; safe to run again. Owned books go
     * through book deletion (each queued: its own backup erasure and purge), memories
     * the user wrote in other people's books through the submission service
     * (which removes their media), then the user's history: memberships,
     * audit trail, stored answers, sessions, key names, stream settings, data
     * exports (rows and files). The answer to the deletion request itself
     * (and its audit event) stays, so a retry with the same key still
     * replays it.
     */
    async purge(userId: string): Promise<void> {
      const deletedAt = (await findDeletionState(db, userId))?.deleted_at;
      if (!deletedAt) return;
      // Each owned book's deletion goes on the queue as its own job (its erasure may take a while).
      await db.transaction(async (tx) => {
        for (const bookId of await findOwnedBookIds(tx, userId)) await deps.bookDeletion.queueDeletion(tx, bookId);
      });
      await deps.submissions.eraseAuthoredBy(userId);
      await db.transaction(async (tx) => {
        await deleteUserHistory(tx, userId, deletedAt);
        await deleteUserStreamData(tx, userId);
        await deps.releaseExports?.(tx, userId);
        await deps.forgetBilling?.(tx, userId);
        await markPurged(tx, userId);
      });
    },

    /** The sweep (hourly): queues again the purge of every deleted account whose purge did not finish, unless one is pending. */
    async resumePurges(): Promise<number> {
      let queued = 0;
      for (const userId of await findAccountsAwaitingPurge(db)) {
        if (await deps.queue.send('account.purge', { userId }, { unlessPending: true })) queued++;
      }
      return queued;
    },
  };
}
export type AccountService = ReturnType<typeof createAccountService>;
