import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { addMember, newBook, newSubmission, newUser, type TestUser } from '../../helpers/factories.js';

let t: TestApp;
let owner: TestUser, admin: TestUser, contributor: TestUser;
let slug: string;

beforeAll(async () => {
  t = await buildTestApp();
  [owner, admin, contributor] = await Promise.all([newUser(t), newUser(t), newUser(t)]);
  slug = (await newBook(t, owner, { plan: 'plus' })).slug;
  await addMember(t, slug, admin, 'admin');
  await addMember(t, slug, contributor, 'contributor');
});

type State = 'pending' | 'approved' | 'pinned' | 'rejected';
type Action = 'approve' | 'reject' | 'pin' | 'unpin';
type Role = 'owner' | 'admin' | 'contributor';

/** What an owner or admin gets: status, changed, and the resulting state ('pinned' = approved and pinned). */
type Outcome = { status: 200; changed: boolean; then: State } | { status: 409 };

/** The whole moderation table, written out by hand so the state machine is checked, not restated. */
const TABLE: Record<State, Record<Action, Outcome>> = {
  pending: {
    approve: { status: 200, changed: true, then: 'approved' },
    reject: { status: 200, changed: true, then: 'rejected' },
    pin: { status: 409 },
    unpin: { status: 200, changed: false, then: 'pending' },
  },
  approved: {
    approve: { status: 200, changed: false, then: 'approved' },
    reject: { status: 200, changed: true, then: 'rejected' },
    pin: { status: 200, changed: true, then: 'pinned' },
    unpin: { status: 200, changed: false, then: 'approved' },
  },
  pinned: {
    approve: { status: 200, changed: false, then: 'pinned' },
    reject: { status: 200, changed: true, then: 'rejected' },
    pin: { status: 200, changed: false, then: 'pinned' },
    unpin: { status: 200, changed: true, then: 'approved' },
  },
  rejected: {
    approve: { status: 200, changed: true, then: 'approved' },
    reject: { status: 200, changed: false, then: 'rejected' },
    pin: { status: 409 },
    unpin: { status: 200, changed: false, then: 'rejected' },
  },
};

const STEPS: Record<State, Action[]> = { pending: [], approved: ['approve'], pinned: ['approve', 'pin'], rejected: ['reject'] };
const url = (id: string, action?: Action) => `/api/v1/books/${slug}/submissions/${id}/${action ? `${action}/` : ''}`;

/** A submission brought to `state` through the API, as the owner. */
async function inState(state: State) {
  const s = await newSubmission(t, slug, contributor);
  for (const step of STEPS[state]) expect((await t.post(url(s.id, step), undefined, { token: owner.token })).status).toBe(200);
  return (await t.get(url(s.id), { token: owner.token })).body;
}

function stateOf(s: { status: string; is_pinned: boolean }): State {
  return s.is_pinned ? 'pinned' : (s.status as State);
}

const users = () => ({ owner, admin, contributor });

describe.each(Object.keys(TABLE) as State[])('from %s', (state) => {
  for (const action of ['approve', 'reject', 'pin', 'unpin'] as Action[]) {
    for (const role of ['owner', 'admin', 'contributor'] as Role[]) {
      const outcome: Outcome | { status: 403 } = role === 'contributor' ? { status: 403 } : TABLE[state][action];
      const label = outcome.status === 200 ? `200 changed:${outcome.changed} → ${outcome.then}` : String(outcome.status);
      it(`${action} as ${role} → ${label}`, async () => {
        const before = await inState(state);
        const res = await t.post(url(before.id, action), undefined, { token: users()[role].token });
        expect(res.status).toBe(outcome.status);
        const after = (await t.get(url(before.id), { token: owner.token })).body;
        if (outcome.status !== 200) {
          expect(res.body.code).toBe(outcome.status === 403 ? 'insufficient_role' : 'invalid_state');
          expect(after).toEqual(before);
          return;
        }
        expect(res.body).toMatchObject({ action, changed: outcome.changed });
        expect(res.body.submission).toEqual(after);
        expect(stateOf(after)).toBe(outcome.then);
        expect(after.pinned_at === null).toBe(!after.is_pinned);
        // changed:false writes nothing; a change always moves the ETag.
        if (outcome.changed) expect(after.etag).not.toBe(before.etag);
        else expect(after).toEqual(before);
      });
    }
  }
});

describe('409 invalid_state', () => {
  it('names the action, the current status and where it is allowed from', async () => {
    const s = await inState('pending');
    const res = await t.post(url(s.id, 'pin'), undefined, { token: owner.token });
    expect(res.body).toMatchObject({ code: 'invalid_state', details: { action: 'pin', status: 'pending', allowed_from: ['approved'] } });
  });
});
