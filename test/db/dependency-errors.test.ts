/**
 * Which failures are a dependency being down (503 with Retry-After, named in
 * the log and the metrics) and which are not: the classifiers of the Db, the
 * S3 store and the SMTP mailer, each against a real refusal where one can be
 * made (a port nobody listens on), and against the errors each driver raises.
 */
import { describe, expect, it } from 'vitest';
import { createPostgresDb } from '../../src/db/client.js';
import { isDatabaseUnavailable, translateDbError, translatePgError } from '../../src/db/pg-errors.js';
import { AppError } from '../../src/errors.js';
import { createSmtpMailer, mailOutage } from '../../src/mail/mailer.js';
import { createS3ObjectStore, storeOutage } from '../../src/storage/s3-store.js';
import { Readable } from 'node:stream';
import { freePort } from '../helpers/spawn-server.js';

const pgError = (code: string) => Object.assign(new Error('from the server'), { code, severity: 'FATAL' });

function expectOutage(err: unknown, dependency: string) {
  expect(err).toBeInstanceOf(AppError);
  const e = err as AppError;
  expect(e).toMatchObject({ code: 'service_unavailable', status: 503, transient: true, dependency });
  expect(Number(e.headers['retry-after'])).toBeGreaterThan(0);
}

describe('the database', () => {
  it.each(['08000', '08003', '08006', '08001', '08004', '57P01', '57P02', '57P03', '53100', '53200', '53300'])('SQLSTATE %s is the database unavailable', (code) => {
    expectOutage(translatePgError(pgError(code)), 'database');
  });

  it('statement errors are not: a unique violation, a timeout (busy, 1 s), a syntax error', () => {
    expect(translatePgError(pgError('23505'))?.code).toBe('conflict');
    expect(translatePgError(pgError('57014'))).toMatchObject({ code: 'service_unavailable', dependency: undefined });
    expect(translatePgError(pgError('42601'))).toBeUndefined();
  });

  it('node-postgres losing its connection, or a refused socket, is unavailable only when the Db raised it', () => {
    for (const err of [new Error('Connection terminated unexpectedly'), Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' })]) {
      expectOutage(translateDbError(err), 'database');
      expect(isDatabaseUnavailable(err, false)).toBe(false);
    }
    expect(translateDbError(new Error('something else'))).toBeUndefined();
  });

  it('a database nobody listens on: every statement and transaction answers the outage', async () => {
    const db = createPostgresDb(`postgres://postgres@127.0.0.1:${await freePort()}/none`, { poolSize: 2 });
    try {
      expectOutage(await db.query('SELECT 1').catch((e) => e), 'database');
      expectOutage(await db.transaction((tx) => tx.query('SELECT 1')).catch((e) => e), 'database');
      expectOutage(await db.exec('SELECT 1').catch((e) => e), 'database');
    } finally {
      await db.close();
    }
  });
});

describe('the object store', () => {
  it('a store nobody listens on: a put is the object store unavailable', async () => {
    const store = createS3ObjectStore({
      bucket: 'b',
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${await freePort()}`,
      forcePathStyle: true,
      accessKeyId: 'k',
      secretAccessKey: 's',
    } as never);
    try {
      expectOutage(await store.put('media/x', Readable.from([Buffer.from('x')]), { contentType: 'text/plain' }).catch((e) => e), 'object_store');
      expectOutage(await store.head('media/x').catch((e) => e), 'object_store');
    } finally {
      await store.close();
    }
  }, 30_000);

  it('throttling and the store\'s own trouble are unavailable; a refusal, a missing key or an abort are not', () => {
    const s3 = (name: string, status: number) => Object.assign(new Error(name), { name, $metadata: { httpStatusCode: status } });
    expectOutage(storeOutage(s3('SlowDown', 503)), 'object_store');
    expectOutage(storeOutage(s3('InternalError', 500)), 'object_store');
    expectOutage(storeOutage(s3('TooManyRequests', 429)), 'object_store');
    expect(storeOutage(s3('AccessDenied', 403))).toBeUndefined();
    expect(storeOutage(s3('NoSuchKey', 404))).toBeUndefined();
    expect(storeOutage(Object.assign(new Error('aborted'), { name: 'AbortError' }))).toBeUndefined();
  });
});

describe('the mail server', () => {
  it('an SMTP server nobody listens on is the mail server unavailable (the job retries, named and counted)', async () => {
    const mailer = createSmtpMailer(`smtp://127.0.0.1:${await freePort()}`, 'Memory Book <no-reply@example.test>');
    try {
      expectOutage(await mailer.send({ to: 'a@example.test', subject: 's', text: 't' }).catch((e) => e), 'mail');
    } finally {
      mailer.close();
    }
  }, 30_000);

  it('a refused recipient is not', () => {
    expect(mailOutage(Object.assign(new Error('550 no such user'), { code: 'EENVELOPE', responseCode: 550 }))).toBeUndefined();
    expectOutage(mailOutage(Object.assign(new Error('421 try later'), { code: 'EENVELOPE', responseCode: 421 })), 'mail');
  });
});
