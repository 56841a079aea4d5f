/** A share card rendered by two runs at once (a job redelivered while its first run still renders): one record, one event. */
import { beforeAll, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newBook, newSubmission, newUser } from '../../helpers/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});

it('two runs of the same render record the card once and emit submission.updated once', async () => {
  const owner = await newUser(t);
  const book = await newBook(t, owner, { plan: 'plus' });
  const s = await newSubmission(t, book.slug, owner, { text: 'The lake at dawn, everyone still asleep.' });
  expect((await t.post(`/api/v1/books/${book.slug}/submissions/${s.id}/approve/`, undefined, { token: owner.token })).status).toBe(200);
  const [{ share_card_token: token }] = await t.db.query<{ share_card_token: string }>(`SELECT share_card_token FROM submissions WHERE id = $1`, [s.id]);

  const outcomes = await Promise.all([t.services.shareCards.render(s.id, token), t.services.shareCards.render(s.id, token)]);
  expect(outcomes).toEqual(['rendered', 'rendered']);

  const read = await t.get(`/api/v1/books/${book.slug}/submissions/${s.id}/`, { token: owner.token });
  expect(read.body.share_card_url).toEqual(expect.any(String));
  // The card both runs wrote is the one recorded, and it opens.
  const url = new URL(read.body.share_card_url);
  // (The file server is outside the API and its document: asked directly.)
  const card = await t.app.inject({ method: 'GET', url: url.pathname + url.search });
  expect(card.statusCode).toBe(200);
  expect(String(card.headers['content-type'])).toContain('image/png');

  const events = (await t.get('/api/v1/events/', { token: owner.token, query: { type: 'submission.updated', book_slug: book.slug } })).body.items as any[];
  expect(events.filter((e) => e.data.object.id === s.id && e.data.object.share_card_url)).toHaveLength(1);
});
