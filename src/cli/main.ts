import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError, ensureSecretKey, loadConfig, readDotEnv, type Config } from '../config/config.js';
import type { Db } from '../db/client.js';
import { AppError } from '../errors.js';
import { parseTimestampParam } from '../lib/time.js';
import { startTracing, tracingSettings, type Tracing } from '../lib/tracing.js';
import type { Services } from '../services/index.js';
import { FORWARDED_COMMANDS, type CommandContext, forwardToAdminSocket, startAdminSocket } from './admin-socket.js';

// The app, the services and the job queue are loaded by the commands that use
// them (`await import`), not here: loading all of it takes a good part of a
// second, and `serve` opens the database meanwhile.

const USAGE = `memorybook: the Memory Book Integrator API service

Usage:
  memorybook serve [--no-worker] [--no-mail-inbound]
                                         run the API and the job worker (migrates first); --no-worker
                                         serves only the API, for running \`memorybook worker\` apart (PostgreSQL only);
                                         with SMTP_INBOUND_PORT set it receives mail too, unless --no-mail-inbound
  memorybook worker                      run only the job worker, until SIGTERM (PostgreSQL only)
  memorybook mail-inbound                run the SMTP receiver for the books' addresses (<slug>@MAIL_INBOUND_DOMAIN)
                                         on SMTP_INBOUND_PORT (default 2525), with a job worker that turns mail into
                                         memories (beside \`serve --no-mail-inbound\` on PostgreSQL; alone on the
                                         embedded database)
  memorybook migrate                     apply database migrations
  memorybook user create --email E --password P [--first-name F] [--last-name L] [--staff]
  memorybook token issue --email E --name N
  memorybook slots grant --email E --plan P [--count N]
  memorybook member add --book SLUG --email E --role admin|contributor
  memorybook subscription create --book SLUG --email E --kind new_submission|digest [--channel email|sms|telegram|whatsapp|push]
  memorybook book set-plan --slug SLUG --plan P
  memorybook book grace --slug SLUG (--until ISO8601 | --off)
  memorybook audit list [--email E] [--event NAME] [--limit N]
  memorybook jobs failed [--name N] [--limit N]
  memorybook openapi:export [--out openapi.json] [--errors docs/errors.md]
  memorybook demo [--force]              a demo user, API key, book and memories to try the API with
                                         (refuses a database that already has users unless --force)

On the embedded database (no DATABASE_URL) only one process may open DATA_DIR:
while \`memorybook serve\` runs, the user, token, slots, member, subscription,
book, audit and jobs commands are run by that server, through the Unix socket
DATA_DIR/admin.sock (readable by the account running the server only).

Configuration comes from the environment (and ./.env): PORT, HOST, PUBLIC_URL,
DATA_DIR, DATABASE_URL, SECRET_KEY, LOG_LEVEL. See the README.`;

function shutdownLimits(config: Config) {
  return { delay_ms: config.shutdown.delayMs, timeout_ms: config.shutdown.timeoutMs };
}

/**
 * The shutdown is bounded step by step (requests, then jobs, within
 * SHUTDOWN_TIMEOUT_SECONDS); should a step still hang, the process exits
 * anyway, so an orchestrator's restart never waits on it.
 */
function exitIfStuck(config: Config, log: { error(obj: object, msg: string): void }) {
  const graceMs = config.shutdown.delayMs + config.shutdown.timeoutMs + 10_000;
  setTimeout(() => {
    log.error({ after_ms: graceMs }, 'shutdown did not finish; exiting');
    process.exit(1);
  }, graceMs).unref();
}

/**
 * Where a command's output goes and what it runs against: this process's own
 * stdout, stderr and database, or, when the running server runs the command
 * for its admin socket, the caller's answer and the server's database and
 * services (the CommandContext, handed in: no AsyncLocalStorage, whose hooks
 * would stay on for every promise of the server once one command ran).
 */
interface CommandIo {
  /** Prints one JSON object: what a command created or found. */
  out(value: unknown): void;
  /** A message for the operator, on stderr. */
  complain(message: string): void;
  /** The server's own database and services, already migrated and open; undefined in a command's own process. */
  server: CommandContext | undefined;
}

function commandIo(server: CommandContext | undefined): CommandIo {
  return {
    out: (value) => {
      const line = JSON.stringify(value) + '\n';
      if (server) server.stdout(line);
      else process.stdout.write(line);
    },
    complain: (message) => {
      if (server) server.stderr(message + '\n');
      else console.error(message);
    },
    server,
  };
}

async function withDb<T>(config: Config, io: CommandIo, fn: (db: Db) => Promise<T>): Promise<T> {
  // Run by the server for its admin socket: its own database, already migrated and open.
  if (io.server) return fn(io.server.db);
  const [{ createDb }, { migrate }] = await Promise.all([import('../db/client.js'), import('../db/migrate.js')]);
  const db = await createDb(config);
  try {
    // A database this command set up (or upgraded) gets the job queues too, so `serve` finds them ready.
    if ((await migrate(db)).length > 0) await installQueues(config, db);
    return await fn(db);
  } finally {
    await db.close();
  }
}

/** The job queue's tables and every job's queue (see installJobQueues). */
async function installQueues(config: Config, db: Db): Promise<void> {
  const { installJobQueues } = await import('../jobs/queue.js');
  await installJobQueues({ db, config });
}

/** Commands go through the same services as the API, so every rule holds for them too. */
async function withServices<T>(config: Config, io: CommandIo, fn: (services: Services, db: Db) => Promise<T>): Promise<T> {
  if (io.server) return fn(io.server.services, io.server.db);
  const { createServices } = await import('../services/index.js');
  const { NoJobQueue } = await import('../jobs/no-job-queue.js');
  return withDb(config, io, (db) => fn(createServices({ config, db, queue: new NoJobQueue('this command') }), db));
}

/** What a command's handler gets: the parsed configuration, its words, and how to flush traces on the way out. */
interface CommandInput {
  config: Config;
  io: CommandIo;
  argv: string[];
  sub: string | undefined;
  rest: string[];
  flushTraces: () => Promise<void> | undefined;
}

/** A command's handler: its exit code, or undefined when its words are not a command (the usage is printed). */
type Command = (input: CommandInput) => Promise<number | undefined>;

/** Runs until SIGTERM or SIGINT, then `stop` (bounded by exitIfStuck) and exits 0. */
function runUntilSignal(stop: (signal: string) => Promise<void>): Promise<number> {
  const exit = async (signal: string) => {
    await stop(signal);
    process.exit(0);
  };
  process.once('SIGTERM', () => void exit('SIGTERM'));
  process.once('SIGINT', () => void exit('SIGINT'));
  return new Promise<number>(() => {});
}

async function serve({ config, argv, flushTraces }: CommandInput): Promise<number> {
  const { values: serveFlags } = parseArgs({
    args: argv.slice(1),
    options: { 'no-worker': { type: 'boolean', default: false }, 'no-mail-inbound': { type: 'boolean', default: false } },
    strict: true,
  });
  // With the embedded database no other process can run the jobs: they would never run.
  if (serveFlags['no-worker'] && config.database.kind !== 'postgres') {
    throw new UsageError('serve --no-worker needs DATABASE_URL; with the embedded database only `memorybook serve` itself can run the jobs');
  }
  // The database opens (PGlite compiles its WebAssembly) while the app's modules load.
  const { createDb } = await import('../db/client.js');
  const db = createDb(config);
  db.catch(() => {}); // its failure is startServer's to report, once it awaits it
  const server = await import('../server.js').then(
    ({ startServer }) => startServer(config, { worker: !serveFlags['no-worker'], mailInbound: !serveFlags['no-mail-inbound'], db }),
    async (err: unknown) => {
      await db.then((d) => d.close()).catch(() => {});
      throw err;
    },
  );
  // On the embedded database the operator's commands cannot open DATA_DIR while this runs: they come through DATA_DIR/admin.sock.
  const admin =
    config.database.kind === 'pglite'
      ? await startAdminSocket({ config, db: server.db, services: server.services, run: main, log: server.app.log }).catch((err: unknown) => {
          server.app.log.warn({ err }, 'admin socket not started; operator commands need the server stopped');
          return null;
        })
      : null;
  return runUntilSignal(async (signal) => {
    server.app.log.info({ signal, ...shutdownLimits(config) }, 'shutting down; finishing requests in flight');
    exitIfStuck(config, server.app.log);
    await admin?.close();
    await server.close();
    await flushTraces();
  });
}

async function worker({ config, flushTraces }: CommandInput): Promise<number> {
  // PGlite does not lock DATA_DIR: a second process opening it beside `serve` would corrupt it.
  if (config.database.kind !== 'postgres') {
    throw new UsageError('worker needs DATABASE_URL; with the embedded database `memorybook serve` runs the jobs itself');
  }
  const { startWorker } = await import('../worker.js');
  const running = await startWorker(config);
  return runUntilSignal(async (signal) => {
    running.log.info({ signal, ...shutdownLimits(config) }, 'shutting down; finishing running jobs');
    exitIfStuck(config, running.log);
    await running.close({ timeoutMs: config.shutdown.timeoutMs });
    await flushTraces();
  });
}

async function mailInbound({ config, argv, flushTraces }: CommandInput): Promise<number> {
  parseArgs({ args: argv.slice(1), options: {}, strict: true });
  // A worker of its own: on PostgreSQL one more beside the others; on the embedded database the only process, so the one that runs the jobs.
  const [{ startWorker }, { startMailInbound }] = await Promise.all([import('../worker.js'), import('../mail-inbound.js')]);
  const running = await startWorker(config);
  let receiver;
  try {
    receiver = await startMailInbound({ config, services: running.services, log: running.log });
  } catch (err) {
    await running.close();
    throw err;
  }
  return runUntilSignal(async (signal) => {
    running.log.info({ signal, ...shutdownLimits(config) }, 'shutting down; finishing mail being received and running jobs');
    exitIfStuck(config, running.log);
    await receiver.close();
    await running.close({ timeoutMs: config.shutdown.timeoutMs });
    await flushTraces();
  });
}

async function migrateCommand({ config, io }: CommandInput): Promise<number> {
  const [{ createDb }, { migrate }] = await Promise.all([import('../db/client.js'), import('../db/migrate.js')]);
  const db = await createDb(config);
  try {
    const applied = await migrate(db);
    await installQueues(config, db);
    io.out({ applied });
  } finally {
    await db.close();
  }
  return 0;
}

async function userCreate({ config, io, rest }: CommandInput): Promise<number> {
  const { values } = parseArgs({
    args: rest,
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      'first-name': { type: 'string' },
      'last-name': { type: 'string' },
      staff: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (!values.email || !values.password) throw new UsageError('user create needs --email and --password');
  const { toProfile } = await import('../services/users/user-mapper.js');
  const user = await withServices(config, io, (services) =>
    services.users.createUser({
      email: values.email!,
      password: values.password!,
      firstName: values['first-name'],
      lastName: values['last-name'],
      isStaff: values.staff,
    }),
  );
  io.out(toProfile(user));
  return 0;
}

async function tokenIssue({ config, io, rest }: CommandInput): Promise<number> {
  const { values } = parseArgs({ args: rest, options: { email: { type: 'string' }, name: { type: 'string' } }, strict: true });
  if (!values.email || !values.name) throw new UsageError('token issue needs --email and --name');
  const result = await withServices(config, io, async (services, db) => {
    const user = await mustFindUser(services, values.email!);
    const { token, plaintext } = await services.tokens.issueToken(db, user.id, values.name!);
    return { id: token.id, name: token.name, user_id: user.id, email: user.email, plaintext, created_at: token.created_at };
  });
  io.out(result);
  return 0;
}

async function slotsGrant({ config, io, rest }: CommandInput): Promise<number> {
  const { values } = parseArgs({
    args: rest,
    options: { email: { type: 'string' }, plan: { type: 'string' }, count: { type: 'string', default: '1' } },
    strict: true,
  });
  if (!values.email || !values.plan) throw new UsageError('slots grant needs --email and --plan');
  const count = Number(values.count);
  if (!Number.isInteger(count) || count < 1 || count > 10000) throw new UsageError('--count must be a whole number from 1 to 10000');
  io.out(
    await withServices(config, io, async (services) => {
      const user = await mustFindUser(services, values.email!);
      return { email: user.email, ...(await services.billingCheckout.grantSlotsAsOperator(user.id, values.plan!, count)) };
    }),
  );
  return 0;
}

async function memberAdd({ config, io, rest }: CommandInput): Promise<number> {
  const { values } = parseArgs({
    args: rest,
    options: { book: { type: 'string' }, email: { type: 'string' }, role: { type: 'string', default: 'admin' } },
    strict: true,
  });
  if (!values.book || !values.email) throw new UsageError('member add needs --book and --email');
  if (values.role !== 'admin' && values.role !== 'contributor') throw new UsageError('--role must be admin or contributor');
  io.out(
    await withServices(config, io, async (services) => {
      const m = await services.members.addMemberAsOwner(values.book!, { email: values.email! }, values.role as 'admin' | 'contributor');
      return { book: values.book, user_id: m.user_id, email: m.email, role: m.role, joined_at: m.joined_at };
    }),
  );
  return 0;
}

async function subscriptionCreate({ config, io, rest }: CommandInput): Promise<number> {
  const { values } = parseArgs({
    args: rest,
    options: { book: { type: 'string' }, email: { type: 'string' }, kind: { type: 'string' }, channel: { type: 'string', default: 'email' } },
    strict: true,
  });
  if (!values.book || !values.email || !values.kind) throw new UsageError('subscription create needs --book, --email and --kind');
  if (values.kind !== 'new_submission' && values.kind !== 'digest') throw new UsageError('--kind must be new_submission or digest');
  if (!['email', 'sms', 'telegram', 'whatsapp', 'push'].includes(values.channel!)) throw new UsageError('--channel must be email, sms, telegram, whatsapp or push');
  io.out(
    await withServices(config, io, (services) =>
      services.subscriptions.createSubscription({
        slug: values.book!,
        email: values.email!,
        kind: values.kind as 'new_submission' | 'digest',
        channel: values.channel as 'email' | 'sms' | 'telegram' | 'whatsapp' | 'push',
      }),
    ),
  );
  return 0;
}

/** `book set-plan` and `book grace`, audited. */
async function book({ config, io, sub, rest }: CommandInput): Promise<number | undefined> {
  const { values } = parseArgs({
    args: rest,
    options: { slug: { type: 'string' }, plan: { type: 'string' }, until: { type: 'string' }, off: { type: 'boolean', default: false } },
    strict: true,
  });
  if (!values.slug) throw new UsageError(`book ${sub ?? ''} needs --slug`);
  if (sub === 'set-plan') {
    if (!values.plan) throw new UsageError('book set-plan needs --plan');
    io.out(
      await withServices(config, io, async (services) => {
        const result = await services.billing.setPlan(values.slug!, values.plan!);
        await services.audit.record('operator_book_plan_set', { userId: null, requestId: null, data: { book: values.slug, plan: values.plan } });
        return result;
      }),
    );
    return 0;
  }
  if (sub === 'grace') {
    if (values.off === Boolean(values.until)) throw new UsageError('book grace needs exactly one of --until ISO8601 or --off');
    const until = values.off ? 'off' : parseTimestampParam(values.until!);
    if (!until) throw new UsageError(`--until is not an ISO 8601 timestamp: ${values.until}`);
    io.out(
      await withServices(config, io, async (services) => {
        const result = await services.billing.setGracePeriod(values.slug!, until);
        await services.audit.record('operator_book_grace_set', { userId: null, requestId: null, data: { book: values.slug, until } });
        return result;
      }),
    );
    return 0;
  }
  return undefined;
}

async function auditList({ config, io, rest }: CommandInput): Promise<number> {
  const { values } = parseArgs({
    args: rest,
    options: { email: { type: 'string' }, event: { type: 'string' }, limit: { type: 'string' } },
    strict: true,
  });
  await withServices(config, io, async (services) => {
    const user = values.email ? await mustFindUser(services, values.email) : undefined;
    for (const e of await services.audit.list({ userId: user?.id, event: values.event, limit: Number(values.limit ?? 100) })) io.out(e);
  });
  return 0;
}

async function jobsFailed({ config, io, rest }: CommandInput): Promise<number> {
  const { values } = parseArgs({ args: rest, options: { name: { type: 'string' }, limit: { type: 'string' } }, strict: true });
  const limit = values.limit === undefined ? 50 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UsageError('--limit must be a whole number from 1 to 1000');
  const { listFailedJobs } = await import('../jobs/failed-jobs.js');
  for (const job of await withDb(config, io, (db) => listFailedJobs(db, config, { name: values.name, limit }))) io.out(job);
  return 0;
}

async function demo({ config, io, argv }: CommandInput): Promise<number> {
  const { values } = parseArgs({ args: argv.slice(1), options: { force: { type: 'boolean', default: false } }, strict: true });
  const { runDemo, DemoRefused } = await import('./demo.js');
  try {
    const made = await runDemo(config, { force: values.force });
    io.out(made.output);
    for (const line of made.hints) console.error(line);
    return 0;
  } catch (err) {
    if (!(err instanceof DemoRefused)) throw err;
    console.error(`memorybook: ${err.message}`);
    return 1;
  }
}

async function openapiExport({ config, sub, rest }: CommandInput): Promise<number> {
  const { values } = parseArgs({ args: [sub, ...rest].filter(Boolean) as string[], options: { out: { type: 'string' }, errors: { type: 'string' } }, strict: true });
  const doc = await exportOpenApi(config);
  writeFileSync(values.out ?? 'openapi.json', JSON.stringify(doc, null, 2) + '\n');
  // The error catalogue beside it, from the same document.
  const { renderErrorCatalogue } = await import('../http/error-catalogue.js');
  writeFileSync(values.errors ?? 'docs/errors.md', renderErrorCatalogue(doc));
  return 0;
}

async function help(): Promise<number> {
  console.log(USAGE);
  return 0;
}

/** A command with sub-commands: its handler runs only for its own sub-command's word. */
const only =
  (word: string, handler: Command): Command =>
  async (input) =>
    input.sub === word ? handler(input) : undefined;

/** Every command, by its first word. */
const COMMANDS: Record<string, Command> = {
  serve,
  worker,
  'mail-inbound': mailInbound,
  migrate: migrateCommand,
  user: only('create', userCreate),
  token: only('issue', tokenIssue),
  slots: only('grant', slotsGrant),
  member: only('add', memberAdd),
  subscription: only('create', subscriptionCreate),
  book,
  audit: only('list', auditList),
  jobs: only('failed', jobsFailed),
  demo,
  'openapi:export': openapiExport,
  help,
  '--help': help,
  '-h': help,
};

/** Commands that keep no generated SECRET_KEY on disk (see ensureSecretKey). */
const NO_SECRET_KEPT = new Set(['help', '--help', '-h', 'openapi:export']);

/** The configuration from the environment (and ./.env), or its problems on stderr (exit 2). */
function configFrom(env: Record<string, string | undefined>): Config | null {
  try {
    return loadConfig(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    for (const p of err.problems) console.error(`configuration error: ${p}`);
    return null;
  }
}

/** The exit code for a command's failure: a usage or an operator's mistake is told plainly; anything else is thrown. */
function failureCode(err: unknown, io: CommandIo): number {
  if (err instanceof UsageError) {
    io.complain(`memorybook: ${err.message}`);
    return 2;
  }
  if (err instanceof AppError) {
    io.complain(`memorybook: ${err.message}`);
    return 1;
  }
  const code = (err as { code?: string }).code;
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    io.complain(`memorybook: ${(err as Error).message}`);
    return 2;
  }
  throw err;
}

/** The CLI; `server` when the running server runs the command for its admin socket (startAdminSocket). */
export async function main(argv: string[], server?: CommandContext): Promise<number> {
  const io = commandIo(server);
  const [command, sub, ...rest] = argv;
  const env = readDotEnv(process.env);
  const config = configFrom(env);
  if (!config) return 2;
  if (command === undefined) {
    console.error(USAGE);
    return 2;
  }

  // Beside a running embedded server (which holds DATA_DIR), an operator's command is run by that server, through its admin socket.
  if (FORWARDED_COMMANDS.has(command) && config.database.kind === 'pglite' && !server) {
    const forwarded = await forwardToAdminSocket(config, argv);
    if (forwarded) {
      process.stdout.write(forwarded.stdout);
      process.stderr.write(forwarded.stderr);
      return forwarded.code;
    }
  }

  // Traces (README "Tracing"), for the commands that run on: only when OTEL_* asks, and then the SDK loads.
  let tracing: Tracing | null = null;
  if ((command === 'serve' || command === 'worker' || command === 'mail-inbound') && tracingSettings(env)) {
    const { default: pino } = await import('pino');
    tracing = await startTracing(env, pino({ level: config.logLevel, base: { component: 'tracing' } }));
  }
  const flushTraces = () => tracing?.shutdown().catch(() => {});

  const handler = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  try {
    // Loading wrote nothing: a command that serves or writes keeps a generated SECRET_KEY now (help and the document export need none kept).
    const kept = handler && !NO_SECRET_KEPT.has(command) ? ensureSecretKey(config) : config;
    const code = handler ? await handler({ config: kept, io, argv, sub, rest, flushTraces }) : undefined;
    if (code !== undefined) return code;
  } catch (err) {
    return failureCode(err, io);
  }
  io.complain(USAGE);
  return 2;
}

class UsageError extends Error {}

async function mustFindUser(services: Services, email: string) {
  const user = await services.users.findByEmail(email);
  if (!user) throw new UsageError(`no user with email ${email}`);
  return user;
}

/** Builds the app on a throwaway in-memory database and reads the document through inject. */
export async function exportOpenApi(config: Config) {
  const [{ createPgliteDb }, { migrate }, { buildApp }] = await Promise.all([import('../db/client.js'), import('../db/migrate.js'), import('../app.js')]);
  const db = await createPgliteDb();
  try {
    await migrate(db);
    const { NoJobQueue } = await import('../jobs/no-job-queue.js');
    const app = await buildApp({ config, db, queue: new NoJobQueue('the OpenAPI export') }, { logger: false });
    const res = await app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    await app.close();
    return res.json();
  } finally {
    await db.close();
  }
}
