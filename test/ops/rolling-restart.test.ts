import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPgliteDb } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { createTokenService } from '../../src/services/tokens/token-service.js';
import { createUserAccount } from '../../src/services/users/user-service.js';
import { buildTestApp } from '../helpers/build-test-app.js';
import { newBook, newUser } from '../helpers/factories.js';
import { startLoadBalancer } from '../helpers/load-balancer.js';
import { createResponseValidator } from '../helpers/openapi-validator.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn-server.js';
import { createTestDatabase, TEST_DATABASE_URL } from '../helpers/test-db.js';
import { eventually } from '../helpers/eventually.js';

// Two processes share one database only on PostgreSQL (an embedded data folder has one owner).
describe.runIf(TEST_DATABASE_URL)('a rolling restart under load', () => {
  it('SIGTERM on each process in turn, behind a balancer, fails no request and applies every keyed create once', async () => {
    const t = await buildTestApp();
    const schema = t.database.schema!;
    const owner = await newUser(t);
    const { slug, body: setupBook } = await newBook(t, owner, { plan: 'plus' });
    const env = { SUBMISSION_RATE_LIMIT: '1000000' };
    const servers: SpawnedServer[] = await Promise.all([spawnServer({ schema, env }), spawnServer({ schema, env })]);
    const lb = await startLoadBalancer(servers.map((s) => s.url));
    const validate = createResponseValidator(await (await fetch(`${servers[0].url}/api/v1/openapi.json`)).json());
    try {
      const auth = { authorization: `Bearer ${owner.token}` };
      const failures: string[] = [];
      const served: Record<string, number> = {};
      /** What each answered keyed create made: its key's marker (title or text) → the id the client was given. */
      const createdSubmissions = new Map<string, string>();
      const createdBooks = new Map<string, string>();
      let replays = 0;

      async function call(op: string, method: string, path: string, expected: number, body?: object, key?: string) {
        const headers: Record<string, string> = { ...auth };
        if (body) headers['content-type'] = 'application/json';
        if (key) headers['idempotency-key'] = key;
        try {
          // A request the balancer holds longer than this is a failure too.
          const res = await fetch(lb.url + path, { method, headers, body: body && JSON.stringify(body), signal: AbortSignal.timeout(15_000) });
          const text = await res.text();
          const problems = validate(method, path, res.status, res.headers.get('content-type') ?? undefined, text, Object.fromEntries(res.headers));
          if (res.status !== expected || problems.length) {
            failures.push(`${op}: ${method} ${path} → ${res.status} ${problems.slice(0, 2).join('; ')} ${text.slice(0, 200)}`);
            return null;
          }
          served[op] = (served[op] ?? 0) + 1;
          return { body: JSON.parse(text), replayed: res.headers.get('idempotent-replayed') === 'true' };
        } catch (err) {
          failures.push(`${op}: ${method} ${path} → ${(err as Error).name}: ${(err as Error).message} ${String((err as Error).cause ?? '')}`);
          return null;
        }
      }

      let loading = true;
      async function loop(n: number) {
        for (let i = 0; loading; i++) {
          switch ((n + i) % 6) {
            case 0:
              await call('read book', 'GET', `/api/v1/books/${slug}/`, 200);
              break;
            case 1:
              await call('list books', 'GET', '/api/v1/books/', 200);
              break;
            case 2:
              await call('list submissions', 'GET', `/api/v1/books/${slug}/submissions/?limit=20`, 200);
              break;
            case 3:
            case 4: {
              const key = randomUUID();
              const text = `memory ${key}`;
              const res = await call('create submission', 'POST', `/api/v1/books/${slug}/submissions/`, 201, { text_content: text }, key);
              if (!res) break;
              createdSubmissions.set(text, res.body.id);
              // Now and then the client repeats the call, as after a timeout: the same answer, not a second memory.
              if (i % 4 === 0) {
                const again = await call('repeat create submission', 'POST', `/api/v1/books/${slug}/submissions/`, 201, { text_content: text }, key);
                if (again && (!again.replayed || again.body.id !== res.body.id)) failures.push(`repeat of ${key} was not the stored answer`);
                if (again) replays++;
              }
              break;
            }
            case 5: {
              const key = randomUUID();
              const title = `Book ${key}`;
              const res = await call('create book', 'POST', '/api/v1/books/', 201, { title }, key);
              if (res) createdBooks.set(title, res.body.slug);
              break;
            }
          }
        }
      }

      const loops = Array.from({ length: 6 }, (_, n) => loop(n));
      const restarts: { inFlightAtSignal: number; exitCode: number | null; drainMs: number }[] = [];
      await new Promise((r) => setTimeout(r, 1500));
      for (const i of [0, 1]) {
        const old = servers[i];
        // Signal while the balancer has requests on this process, so the drain has work to finish.
        for (const deadline = Date.now() + 5000; lb.inFlight(old.url) === 0 && Date.now() < deadline; ) await new Promise((r) => setImmediate(r));
        const inFlightAtSignal = lb.inFlight(old.url);
        const signalledAt = Date.now();
        const exitCode = await old.stop('SIGTERM');
        restarts.push({ inFlightAtSignal, exitCode, drainMs: Date.now() - signalledAt });
        // The replacement takes the same port: until it listens, the balancer finds the port refusing.
        servers[i] = await spawnServer({ schema, env, port: Number(new URL(old.url).port) });
        await new Promise((r) => setTimeout(r, 1500));
      }
      loading = false;
      await Promise.all(loops);

      const total = Object.values(served).reduce((a, b) => a + b, 0);
      console.log(JSON.stringify({ served, total, replays, balancer: lb.stats, restarts }));
      expect(failures).toEqual([]);
      expect(restarts.map((r) => r.exitCode)).toEqual([0, 0]);
      expect(restarts.every((r) => r.inFlightAtSignal > 0)).toBe(true);
      expect(lb.stats.gaveUp).toBe(0);
      expect(lb.stats.cutResponses).toBe(0);
      expect(lb.stats.requests).toBe(total);

      // Every answered create exists, exactly once, with the id the client was given.
      const subs = await t.db.query<{ text_content: string; ids: string[] }>(
        `SELECT s.text_content, array_agg(s.id::text) AS ids FROM submissions s JOIN books b ON b.id = s.book_id WHERE b.slug = $1 GROUP BY s.text_content`,
        [slug],
      );
      expect(subs.filter((s) => s.ids.length > 1)).toEqual([]);
      expect(new Map(subs.map((s) => [s.text_content, s.ids[0]]))).toEqual(createdSubmissions);
      const books = await t.db.query<{ title: string; slugs: string[] }>(
        `SELECT title, array_agg(slug) AS slugs FROM books WHERE owner_id = $1 AND deleted_at IS NULL AND title <> $2 GROUP BY title`,
        [owner.user.id, setupBook.title],
      );
      expect(books.filter((b) => b.slugs.length > 1)).toEqual([]);
      expect(new Map(books.map((b) => [b.title, b.slugs[0]]))).toEqual(createdBooks);
      expect(createdSubmissions.size).toBeGreaterThan(0);
      expect(createdBooks.size).toBeGreaterThan(0);
    } finally {
      await lb.close();
      await Promise.all(servers.map((s) => s.stop()));
    }
  }, 180_000);
});

/** A POST whose body is held back: in flight until `finish`, as a slow upload is. */
function heldRequest(url: string, token: string) {
  const { port } = new URL(url);
  const body = JSON.stringify({ first_name: 'Slow' });
  let taken!: () => void;
  const headersTaken = new Promise<void>((r) => (taken = r));
  let req!: http.ClientRequest;
  const response = new Promise<{ status: number; connection: string | undefined } | { error: string }>((resolve) => {
    req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'PATCH',
        path: '/api/v1/me/',
        agent: false,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'idempotency-key': randomUUID(), expect: '100-continue' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection }));
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    req.on('continue', taken);
    req.write(body.slice(0, 5));
  });
  return { headersTaken, response, finish: () => req.end(body.slice(5)) };
}

/** GET on a given agent's socket: the status and the Connection header. */
function get(url: string, agent: http.Agent) {
  return new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, body }));
      })
      .on('error', reject);
  });
}

describe('graceful shutdown of one process', () => {
  it('SIGTERM: /readyz answers 503 while requests are still taken, answers close their connections, and past the timeout a stuck request is cut', async () => {
    const database = TEST_DATABASE_URL ? await createTestDatabase() : null;
    const dataDir = mkdtempSync(path.join(tmpdir(), 'memorybook-drain-'));
    // A user and key made before the server starts (on PGlite it then holds the data folder alone).
    const db = database?.db ?? (await createPgliteDb(path.join(dataDir, 'pglite')));
    await migrate(db);
    const user = await createUserAccount(db, { email: 'slow@example.test', password: 'long enough pw', firstName: 'A', lastName: 'B', isStaff: false });
    const { plaintext: token } = await createTokenService({ db }).issueToken(db, user.id, 'slow');
    if (!database) await db.close();
    const server = await spawnServer({
      schema: database?.schema ?? undefined,
      dataDir,
      env: { SHUTDOWN_DELAY_SECONDS: '1', SHUTDOWN_TIMEOUT_SECONDS: '2', LOG_LEVEL: 'info' },
    });
    let log = '';
    server.child.stdout!.on('data', (d) => (log += d));
    const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const before = await get(`${server.url}/healthz`, keepAlive);
      expect(before).toMatchObject({ status: 200, connection: 'keep-alive' });
      const finishing = heldRequest(server.url, token);
      const stuck = heldRequest(server.url, token);
      await Promise.all([finishing.headersTaken, stuck.headersTaken]);

      const signalledAt = Date.now();
      const exited = server.stop('SIGTERM');
      await eventually(async () => log.includes('shutting down; finishing requests in flight'));
      // During SHUTDOWN_DELAY_SECONDS the process still takes requests, but says it is going away.
      const ready = await get(`${server.url}/readyz`, new http.Agent());
      expect(ready.status).toBe(503);
      expect(JSON.parse(ready.body)).toEqual({ status: 'draining' });
      expect(ready.connection).toBe('close');
      // A request on a kept-alive connection is served, and that connection ends with it.
      expect(await get(`${server.url}/healthz`, keepAlive)).toMatchObject({ status: 200, connection: 'close' });

      // After the delay it stops listening: a balancer's new connection is refused and goes elsewhere.
      await eventually(() => get(`${server.url}/healthz`, new http.Agent()).then(() => false, (err: NodeJS.ErrnoException) => err.code === 'ECONNREFUSED'), Boolean, 10_000);
      // A request in flight still finishes, closing its connection.
      finishing.finish();
      expect(await finishing.response).toMatchObject({ status: 200, connection: 'close' });

      // One that never finishes holds the process only until SHUTDOWN_TIMEOUT_SECONDS.
      expect(await stuck.response).toEqual({ error: 'ECONNRESET' });
      expect(await exited).toBe(0);
      expect(Date.now() - signalledAt).toBeGreaterThanOrEqual(3_000);
      expect(log).toContain('requests still in flight at the shutdown timeout');
    } finally {
      keepAlive.destroy();
      await server.stop('SIGKILL');
      await database?.drop();
    }
  });
});
