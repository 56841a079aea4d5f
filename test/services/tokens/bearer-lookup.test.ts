/**
 * Bearer lookups are batched (token-service.ts, createBearerLookup). These
 * tests pin what batching must never change: each caller gets its own
 * identity, a revocation committed before a request is seen by that request
 * even while earlier lookups are still in flight, and a failed query fails
 * only the callers that were in it.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/db/client.js';
import { createTokenService, TOKEN_PREFIX } from '../../../src/services/tokens/token-service.js';
import { createUserAccount } from '../../../src/services/users/user-service.js';
import type { UserRow } from '../../../src/services/users/user-types.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-db.js';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

async function newUserWithKeys(n: number): Promise<{ user: UserRow; keys: { id: string; plaintext: string }[] }> {
  const db = database.db;
  const user = await createUserAccount(db, { email: `lookup-${randomUUID().slice(0, 8)}@example.test`, password: 'correct horse battery staple' });
  const tokens = createTokenService({ db });
  const keys = [];
  for (let i = 0; i < n; i++) {
    const { token, plaintext } = await tokens.issueToken(db, user.id, `k${i}`);
    keys.push({ id: token.id, plaintext });
  }
  return { user, keys };
}

const isLookup = (text: string) => text.includes('FROM api_tokens t JOIN users u');

/** The real database, with bearer lookups counted and, when asked, their results held back. */
function instrumented() {
  const real = database.db;
  const gates: (() => void)[] = [];
  const state = { lookups: 0, hold: false, failNext: false };
  const db: Db = {
    ...real,
    async query<R>(text: string, params?: unknown[]) {
      if (!isLookup(text)) return real.query<R>(text, params);
      state.lookups++;
      if (state.failNext) {
        state.failNext = false;
        throw new Error('lookup failed');
      }
      // The query runs now (its snapshot is taken now); only the answer waits.
      const rows = await real.query<R>(text, params);
      if (state.hold) await new Promise<void>((resolve) => gates.push(resolve));
      return rows;
    },
    transaction: (fn) => real.transaction(fn),
    exec: (sql) => real.exec(sql),
    close: async () => {},
  };
  const release = () => gates.splice(0).forEach((open) => open());
  return { db, state, release, heldCount: () => gates.length };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));
async function waitFor(check: () => boolean) {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
}

describe('batched bearer lookups', () => {
  it('answers every concurrent caller with its own key and user, in few queries', async () => {
    const a = await newUserWithKeys(5);
    const b = await newUserWithKeys(5);
    const revoked = a.keys[4];
    await createTokenService({ db: database.db }).revokeToken(database.db, revoked.id);
    const unknown = TOKEN_PREFIX + 'x'.repeat(40);

    const { db, state } = instrumented();
    const tokens = createTokenService({ db });
    const calls = [...a.keys, ...b.keys, ...a.keys.slice(0, 3)].map((k) => k.plaintext).concat([unknown, 'not-a-key']);
    const results = await Promise.all(calls.map((p) => tokens.authenticate(p)));

    expect(state.lookups).toBeLessThanOrEqual(2);
    calls.forEach((plaintext, i) => {
      const owner = a.keys.some((k) => k.plaintext === plaintext) ? a : b.keys.some((k) => k.plaintext === plaintext) ? b : null;
      const r = results[i];
      if (!owner) return expect(r).toBeUndefined();
      const key = owner.keys.find((k) => k.plaintext === plaintext)!;
      expect(r?.token.id).toBe(key.id);
      expect(r?.user.id).toBe(owner.user.id);
      expect(r?.user.email).toBe(owner.user.email);
      expect(r?.revoked).toBe(key === revoked);
    });
    // Callers sharing a key share no objects.
    expect(results[0]!.user).not.toBe(results[10]!.user);
    expect(results[0]!.token).not.toBe(results[10]!.token);
  });

  it('never lets a request ride on a lookup sent before it arrived, so a fresh revocation is seen', async () => {
    const { keys } = await newUserWithKeys(2);
    const { db, state, release, heldCount } = instrumented();
    const tokens = createTokenService({ db });
    state.hold = true;

    // Two lookups in flight (the most at once), both answered from before the revocation.
    const first = tokens.authenticate(keys[0].plaintext);
    await waitFor(() => heldCount() === 1);
    const second = tokens.authenticate(keys[1].plaintext);
    await waitFor(() => heldCount() === 2);

    // Another process revokes; the next request must see it although it has to wait for a slot.
    await createTokenService({ db: database.db }).revokeToken(database.db, keys[0].id);
    state.hold = false;
    const after = tokens.authenticate(keys[0].plaintext);
    await tick();
    expect(state.lookups).toBe(2);
    release();

    expect((await first)?.revoked).toBe(false);
    expect((await second)?.revoked).toBe(false);
    expect((await after)?.revoked).toBe(true);
    expect(state.lookups).toBe(3);
  });

  it('fails only the callers whose query failed', async () => {
    const { keys } = await newUserWithKeys(3);
    const { db, state } = instrumented();
    const tokens = createTokenService({ db });
    state.failNext = true;
    const failed = await Promise.allSettled(keys.map((k) => tokens.authenticate(k.plaintext)));
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    const next = await Promise.all(keys.map((k) => tokens.authenticate(k.plaintext)));
    expect(next.map((r) => r?.token.id)).toEqual(keys.map((k) => k.id));
  });

  it('refreshes last_used_at once for a key used by many concurrent requests', async () => {
    const { keys } = await newUserWithKeys(1);
    const real = database.db;
    let refreshes = 0;
    const db: Db = {
      ...real,
      query: <R>(text: string, params?: unknown[]) => {
        if (text.startsWith('UPDATE api_tokens SET last_used_at')) refreshes++;
        return real.query<R>(text, params);
      },
      transaction: (fn) => real.transaction(fn),
      exec: (sql) => real.exec(sql),
      close: async () => {},
    };
    const tokens = createTokenService({ db });
    const results = await Promise.all(Array.from({ length: 10 }, () => tokens.authenticate(keys[0].plaintext)));
    expect(results.every((r) => r?.token.last_used_at === null)).toBe(true);
    expect(refreshes).toBe(1);
    // The refresh runs off the request path; once it lands, lookups report it.
    let stored: string | null = null;
    for (let i = 0; i < 100 && !stored; i++) {
      [{ last_used_at: stored }] = await real.query<{ last_used_at: string | null }>('SELECT last_used_at FROM api_tokens WHERE id = $1', [keys[0].id]);
      if (!stored) await new Promise((r) => setTimeout(r, 20));
    }
    expect((await tokens.authenticate(keys[0].plaintext))?.token.last_used_at).toBe(stored);
    expect(refreshes).toBe(1);
  });
});
