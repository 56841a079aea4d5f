#!/usr/bin/env node
// Runs a representative part of the PostgreSQL suite through PgBouncer in
// transaction mode, as production often reaches PostgreSQL: sign-in and
// tokens, keyed writes and their replays (a server killed mid-write
// included), lists and their Last-Modified, the job queue and its worker (a
// worker killed mid-job included), exports, migrations. Starts its own pgbouncer on a free port
// with its own ini and auth file in a temporary folder (never the system
// service), pointed at TEST_DATABASE_URL (default
// postgres://postgres@127.0.0.1:5432/test), and runs the files with
// TEST_DATABASE_URL at it and DATABASE_POOLER=transaction.
//
//   npm run test:pgbouncer                   the files below
//   npm run test:pgbouncer -- <files…>       other files
//   DATABASE_POOLER=none npm run test:pgbouncer   the same without the setting (fails)
//   PGBOUNCER_IGNORE_STARTUP_PARAMETERS=options …  a PgBouncer that drops `options` instead of refusing it
//   TEST_SKIP_BUILD=1 …                      when dist/ is fresh (CI, after npm test)
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

const FILES = [
  'test/http/auth/auth-me.happy.test.ts',
  'test/http/auth/tokens.test.ts',
  'test/http/spine/idempotency.test.ts',
  'test/http/spine/crash.test.ts',
  'test/http/spine/lists.test.ts',
  'test/jobs/queue.test.ts',
  'test/jobs/crash.test.ts',
  'test/http/exports/exports.jobs.test.ts',
  'test/db/migrate.test.ts',
  'test/db/watermark.test.ts',
  'test/db/pooler.test.ts',
];

const pgbouncer = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((p) => spawnSync(p, ['--version']).status === 0);
if (!pgbouncer) {
  console.error('test:pgbouncer needs pgbouncer (Debian: apt-get install pgbouncer)');
  process.exit(1);
}
const version = /PgBouncer (\d+)\.(\d+)/.exec(spawnSync(pgbouncer, ['--version'], { encoding: 'utf8' }).stdout);
const [major, minor] = version ? [Number(version[1]), Number(version[2])] : [0, 0];

const upstream = new URL(process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test');
const user = decodeURIComponent(upstream.username || 'postgres');
const database = decodeURIComponent(upstream.pathname.slice(1) || 'test');

if (process.env.TEST_SKIP_BUILD !== '1') {
  const build = spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const port = await new Promise((resolve, reject) => {
  const s = net.createServer().listen(0, '127.0.0.1', () => {
    const p = s.address().port;
    s.close(() => resolve(p));
  });
  s.on('error', reject);
});

// Readable by the user pgbouncer drops to when started as root.
const dir = mkdtempSync(path.join(tmpdir(), 'memorybook-pgbouncer-'));
chmodSync(dir, 0o755);
const ini = path.join(dir, 'pgbouncer.ini');
const auth = path.join(dir, 'userlist.txt');
writeFileSync(auth, `"${user.replace(/"/g, '""')}" ""\n`, { mode: 0o644 });
writeFileSync(
  ini,
  [
    '[databases]',
    `${database} = host=${upstream.hostname || '127.0.0.1'} port=${upstream.port || 5432} dbname=${database}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = trust',
    `auth_file = ${auth}`,
    'pool_mode = transaction',
    // Newer PgBouncers (1.21+) can carry protocol-level prepared statements; 0 keeps 1.18's behaviour: none.
    ...(major > 1 || (major === 1 && minor >= 21) ? ['max_prepared_statements = 0'] : []),
    // e.g. PGBOUNCER_IGNORE_STARTUP_PARAMETERS=options, as some deployments run it: then the session settings are dropped silently.
    ...(process.env.PGBOUNCER_IGNORE_STARTUP_PARAMETERS ? [`ignore_startup_parameters = ${process.env.PGBOUNCER_IGNORE_STARTUP_PARAMETERS}`] : []),
    'max_client_conn = 1000',
    'default_pool_size = 20',
    'logfile =',
    'pidfile =',
    '',
  ].join('\n'),
  { mode: 0o644 },
);

const args = process.getuid?.() === 0 ? ['-u', 'nobody', ini] : [ini];
const bouncer = spawn(pgbouncer, args, { stdio: ['ignore', 'pipe', 'pipe'] });
let log = '';
bouncer.stdout.on('data', (d) => (log += d));
bouncer.stderr.on('data', (d) => (log += d));
const stop = () => {
  if (bouncer.exitCode === null) bouncer.kill('SIGINT');
};
process.on('exit', () => {
  stop();
  rmSync(dir, { recursive: true, force: true });
});

const listening = async () => {
  for (let i = 0; i < 100; i++) {
    if (bouncer.exitCode !== null) return false;
    const ok = await new Promise((resolve) => {
      const c = net.connect(port, '127.0.0.1', () => (c.end(), resolve(true)));
      c.on('error', () => resolve(false));
    });
    if (ok) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
};
if (!(await listening())) {
  console.error(`pgbouncer did not start:\n${log}`);
  process.exit(1);
}

const url = `postgres://${encodeURIComponent(user)}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
const pooler = process.env.DATABASE_POOLER ?? 'transaction';
const files = process.argv.slice(2).length ? process.argv.slice(2) : FILES;
console.log(`=== ${files.length} test files through ${version?.[0] ?? 'pgbouncer'} (pool_mode = transaction) at ${url}, DATABASE_POOLER=${pooler} ===`);
const run = spawn('npx', ['vitest', 'run', ...files], {
  stdio: 'inherit',
  env: { ...process.env, TEST_DATABASE_URL: url, DATABASE_POOLER: pooler, TEST_DATABASE_UPSTREAM_URL: upstream.href },
});
const code = await new Promise((resolve) => run.on('exit', (c) => resolve(c ?? 1)));
if (code !== 0 && process.env.PGBOUNCER_LOG === '1') console.log(log);
stop();
process.exit(code);
