/**
 * GET …/media/{media_id}/original/ when the store cannot sign just now: 502
 * storage_unavailable with Retry-After, as the document says of that 502 (the
 * route declares it), and the file kept: the next try, once the store signs
 * again, answers the link.
 */
import { describe, expect, it } from 'vitest';
import { newBook, newSubmission, newUser } from '../../helpers/factories.js';
import { readFixture } from '../../helpers/media-fixtures.js';
import { SigningError, type ObjectStore } from '../../../src/storage/index.js';
import { buildMediaApp, processed, upload } from './media-setup.js';

describe('an original the store cannot sign just now', () => {
  it('answers 502 storage_unavailable with Retry-After, then the link once the store signs again', async () => {
    let signing = true;
    // The real store, its signing switched off and on (as exports-setup.ts does for exports).
    const wrap = (real: ObjectStore): ObjectStore =>
      new Proxy(real, {
        get(target, prop, receiver) {
          if (prop === 'signedUrl' && !signing) return async () => Promise.reject(new SigningError('test: signing switched off'));
          const value = Reflect.get(target, prop, receiver);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    const t = await buildMediaApp('local', { wrapStore: wrap });
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner, { plan: 'premium' });
    const sub = await newSubmission(t, slug, owner);
    const res = await upload(t, owner, slug, sub.id, await readFixture('png'), { filename: 'kept.png', contentType: 'image/png' });
    expect(res.status).toBe(201);
    const location = res.headers.location as string;
    await processed(t, owner, location);

    signing = false;
    const refused = await t.get(`${location}original/`, { token: owner.token });
    expect(refused.status).toBe(502);
    expect(refused.body.code).toBe('storage_unavailable');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);

    signing = true;
    const again = await t.get(`${location}original/`, { token: owner.token });
    expect(again.status).toBe(200);
    expect(again.body.filename).toBe('kept.png');
  });
});
