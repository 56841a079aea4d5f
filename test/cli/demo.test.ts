/**
 * `memorybook demo`, run as an operator would (the built CLI), then tried as
 * its output suggests: the printed key and curl commands against a served
 * instance, the photo processed, the book on a plan with every feature.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_SECRET } from '../helpers/build-test-app.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn-server.js';
import { TEST_DATABASE_URL } from '../helpers/test-db.js';

const run = promisify(execFile);
const BIN = path.resolve('bin/memorybook.js');
const schema = TEST_DATABASE_URL ? `demo_${Math.random().toString(36).slice(2, 10)}` : undefined;
const dataDir = mkdtempSync(path.join(tmpdir(), 'memorybook-demo-'));
// PUBLIC_URL left unset: the demo prints the default address (http://localhost:8000).
const { PUBLIC_URL: _unset, ...inherited } = process.env;
const env = {
  ...inherited,
  NODE_ENV: 'test',
  SECRET_KEY: TEST_SECRET,
  DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
  PORT: '8000',
  ...(schema ? { DATABASE_URL: TEST_DATABASE_URL!, DATABASE_SCHEMA: schema } : { DATABASE_URL: '' }),
};

const demo = (...args: string[]) => run(process.execPath, [BIN, 'demo', ...args], { env, timeout: 180_000 });

interface DemoOutput {
  user: { id: string; email: string; password: string };
  api_key: string;
  book: { slug: string; title: string; plan: string };
  submissions: { id: string; status: string; is_pinned: boolean; is_private: boolean; media: number }[];
  docs_url: string;
  openapi_url: string;
  sign_in_url: string;
  try: string[];
}

beforeAll(async () => {
  if (!schema) return;
  const c = new pg.Client({ connectionString: TEST_DATABASE_URL! });
  await c.connect();
  await c.query(`CREATE SCHEMA ${schema}`);
  await c.end();
});
afterAll(async () => {
  if (!schema) return;
  const c = new pg.Client({ connectionString: TEST_DATABASE_URL! });
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS ${schema}_pgboss CASCADE; DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await c.end();
});

describe('memorybook demo', () => {
  let first: DemoOutput;
  let second: DemoOutput;

  it('makes a user, a key, a book on the fullest plan and memories with a photo; prints them as one JSON object', async () => {
    const { stdout, stderr } = await demo();
    expect(stdout.trim().split('\n')).toHaveLength(1);
    first = JSON.parse(stdout);
    expect(first).toMatchObject({
      user: { email: 'demo@example.com', password: expect.stringMatching(/^.{16,}$/) },
      api_key: expect.stringMatching(/^svc_live_/),
      book: { slug: 'grandma-rose-turns-90', plan: 'premium' },
      docs_url: 'http://localhost:8000/api/v1/docs',
      openapi_url: 'http://localhost:8000/api/v1/openapi.json',
    });
    expect(first.submissions.map((s) => [s.status, s.is_pinned, s.media])).toEqual([
      ['approved', true, 1],
      ['approved', false, 0],
      ['pending', false, 0],
      ['pending', false, 0],
    ]);
    expect(first.try).toHaveLength(3);
    for (const c of first.try) expect(c).toMatch(new RegExp(`^curl -s .*'Authorization: Bearer ${first.api_key}'`));
    // The hints are for people, on stderr.
    expect(stderr).toContain(first.docs_url);
    expect(stderr).toContain(first.api_key);
    // What turns on each message channel (none is configured here).
    expect(stderr).toContain('WhatsApp: set WHATSAPP_PHONE_NUMBER, WHATSAPP_PHONE_NUMBER_ID, WHATSAPP_ACCESS_TOKEN, WHATSAPP_APP_SECRET and WHATSAPP_VERIFY_TOKEN');
    expect(stderr).toContain('SMS/MMS: set TWILIO_ACCOUNT_SID');
  }, 180_000);

  it('refuses a database that already has users, unless told to with --force', async () => {
    const refused = await demo().catch((e) => e);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/already has 1 user; .*--force/);

    second = JSON.parse((await demo('--force')).stdout);
    expect(second.user.email).toMatch(/^demo\+[a-z0-9]{6}@example\.com$/);
    expect(second.book.slug).not.toBe(first.book.slug);
    expect(second.api_key).not.toBe(first.api_key);
  }, 240_000);

  describe('against the served instance', () => {
    let server: SpawnedServer;
    beforeAll(async () => {
      server = await spawnServer({ schema, dataDir });
    }, 120_000);
    afterAll(async () => {
      expect(await server.stop()).toBe(0);
    });

    const api = (key: string, p: string) => fetch(`${server.url}${p}`, { headers: { authorization: `Bearer ${key}` } });
    const curl = async (command: string) => JSON.parse((await run('sh', ['-c', command.replaceAll('http://localhost:8000', server.url)])).stdout);

    it('answers the three curl commands it printed', async () => {
      const [list, create, approve] = first.try;
      const page = await curl(list);
      expect(page.items).toHaveLength(2);
      expect(page.has_more).toBe(true);

      const created = await curl(create);
      expect(created).toMatchObject({ text_content: 'Happy birthday, Grandma! Sent from curl.', status: 'pending', source: 'api' });
      expect((await curl(create)).id).toBe(created.id); // same Idempotency-Key: replayed, not created twice

      expect(await curl(approve)).toMatchObject({ action: 'approve', changed: true, submission: { status: 'approved' } });
    });

    it('made the book on a plan with every feature, and the photo is processed and downloadable', async () => {
      const permissions = await (await api(first.api_key, `/api/v1/books/${first.book.slug}/permissions/`)).json();
      const features = Object.entries(permissions).filter(([k]) => k.startsWith('feature_'));
      expect(features.length).toBeGreaterThan(0);
      expect(features.every(([, v]) => v === true)).toBe(true);

      const withPhoto = first.submissions.find((s) => s.media)!;
      const s = await (await api(first.api_key, `/api/v1/books/${first.book.slug}/submissions/${withPhoto.id}/`)).json();
      expect(s.media).toHaveLength(1);
      expect(s.media[0]).toMatchObject({ kind: 'image', mime_type: 'image/jpeg', processing_status: 'complete', width: 1200, height: 800, download_status: 'available' });
      const photo = Buffer.from(await (await fetch(s.media[0].download_url)).arrayBuffer());
      expect(photo.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));

      const other = await api(second.api_key, `/api/v1/books/${first.book.slug}/`);
      expect(other.status).toBe(404); // the forced second demo user sees only their own book
    });
  });
});
