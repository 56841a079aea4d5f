/** accepted_by: who accepted an invitation, in the API's invitation shape. */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newBook, newUser } from '../../helpers/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});

const url = (slug: string) => `/api/v1/books/${slug}/invitations/`;

describe('accepted_by', () => {
  it('null while pending; the account when an existing one is added at once (its address compared case-insensitively)', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner);
    const pending = await t.post(url(slug), { identifier_type: 'email', identifier: 'nobody-yet@example.test' }, { token: owner.token });
    expect(pending.status).toBe(201);
    expect(pending.body).toMatchObject({ status: 'pending', accepted_by: null });
    const existing = await newUser(t);
    const accepted = await t.post(url(slug), { identifier_type: 'email', identifier: existing.email.toUpperCase() }, { token: owner.token });
    expect(accepted.status).toBe(201);
    expect(accepted.body).toMatchObject({ status: 'accepted', accepted_by: existing.user.id });
    const list = await t.get(url(slug), { token: owner.token });
    const byId = new Map((list.body.items as any[]).map((i) => [i.id, i]));
    expect(byId.get(pending.body.id).accepted_by).toBeNull();
    expect(byId.get(accepted.body.id).accepted_by).toBe(existing.user.id);
  });
});
