/**
 * `memorybook demo`: an empty database made ready to try in one command. A
 * demo user with an API key, a book on the plan with every feature (its slot
 * granted as `slots grant` does), memories in every moderation state and a
 * real photo, uploaded and processed through the media service. Everything
 * goes through the services, so the demo data obeys the same rules as data
 * made through the API.
 */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import pino from 'pino';
import sharp from 'sharp';
import type { Config } from '../config/config.js';
import { createDb, type Db } from '../db/client.js';
import { migrate } from '../db/migrate.js';
import { AppError } from '../errors.js';
import { createQueue } from '../jobs/queue.js';
import { randomBase62 } from '../lib/secrets.js';
import type { Actor } from '../services/books/book-access.js';
import { createServices, type Services } from '../services/index.js';
import { mailLocalPart } from '../services/channels/web-form-key.js';

/** The database already has users and `--force` was not given. */
export class DemoRefused extends Error {}

export interface DemoOptions {
  /** Add the demo to a database that already has users. */
  force?: boolean;
}

export interface DemoResult {
  /** What stdout gets, as one JSON object. */
  output: Record<string, unknown>;
  /** Lines for people, on stderr. */
  hints: string[];
}

const MEMORIES = [
  { text: 'The summer she taught all of us to swim in the lake behind the cabin, one grandchild at a time.', name: 'Aunt May', photo: true, moderation: ['approve', 'pin'] },
  { text: 'Her apple pie recipe, written on the back of a train ticket from 1961. We still use it every Thanksgiving.', name: 'Sam', moderation: ['approve'] },
  { text: 'She still beats everyone at Scrabble, and she still will not tell us her secret.', name: 'Lena', moderation: [] },
  { text: 'A note for Grandma only: thank you for every Sunday dinner.', name: 'Theo', private: true, moderation: [] },
] as const;

/** A summer lake at sunset, drawn and encoded by sharp: a real JPEG for the media pipeline. */
async function demoPhoto(): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="800">
    <defs>
      <linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#f6a15a"/><stop offset="1" stop-color="#fbe3b5"/></linearGradient>
      <linearGradient id="lake" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#4f86a8"/><stop offset="1" stop-color="#1f4e6b"/></linearGradient>
    </defs>
    <rect width="1200" height="800" fill="url(#sky)"/>
    <circle cx="840" cy="430" r="90" fill="#fff4d6"/>
    <path d="M0 470 Q250 330 520 450 T1200 420 V800 H0 Z" fill="#5d7b4a"/>
    <rect y="520" width="1200" height="280" fill="url(#lake)"/>
    <path d="M120 600 h260 M700 650 h320 M300 720 h420" stroke="#9cc3d8" stroke-width="6" stroke-linecap="round"/>
  </svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 85 }).toBuffer();
}

/** The catalog's plan with the most features (premium as shipped; the operator may have edited the catalog). */
async function fullestPlan(services: Services) {
  const plans = await services.plans.listPlans();
  const score = (p: (typeof plans)[number]) => Object.values(p.features).filter(Boolean).length;
  return [...plans].sort((a, b) => score(b) - score(a) || Number(b.max_members_per_book) - Number(a.max_members_per_book))[0];
}

async function seed(db: Db, services: Services, config: Config): Promise<DemoResult> {
  const email = (await services.users.findByEmail('demo@example.com')) ? `demo+${randomBase62(6).toLowerCase()}@example.com` : 'demo@example.com';
  const password = randomBase62(20);
  const user = await services.users.createUser({ email, password, firstName: 'Demo', lastName: 'Owner' });
  const actor: Actor = { id: user.id, email: user.email };
  const { plaintext: apiKey } = await services.tokens.issueToken(db, user.id, 'demo');

  const plan = await fullestPlan(services);
  if (!plan.is_default) await services.quotas.grantSlots(user.id, plan.slug, 1);
  const book = await db.transaction((tx) =>
    services.books.createBook(tx, actor, {
      title: 'Grandma Rose turns 90',
      subtitle: 'Stories from the family',
      theme: 'storybook',
      use_case_slug: 'birthday',
      plan: plan.slug,
    }),
  );

  const submissions: { id: string; status: string; is_pinned: boolean; is_private: boolean; media: number }[] = [];
  for (const m of MEMORIES) {
    const created = await db.transaction((tx) =>
      services.submissions.createSubmission(tx, actor, book.slug, {
        text_content: m.text,
        contributor_name: m.name,
        is_private: 'private' in m ? m.private : false,
      }),
    );
    let media = 0;
    if ('photo' in m) {
      const staged = await services.media.stageUpload(actor, book.slug, created.id, {
        stream: Readable.from(await demoPhoto()),
        filename: 'summer-at-the-lake.jpg',
        declaredType: 'image/jpeg',
      });
      const uploaded = await db.transaction((tx) => services.media.attachUpload(tx, actor, book.slug, created.id, staged));
      // Processed here rather than by a worker, so the photo is ready (and the memory approvable) when the command ends.
      await services.mediaProcessing.process(uploaded.id, { signal: AbortSignal.timeout(120_000), lastAttempt: true });
      const processed = await services.media.getMedia(actor, book.slug, created.id, uploaded.id);
      if (processed.processing_status !== 'complete') throw new Error(`the demo photo could not be processed (${processed.processing_status})`);
      media = 1;
    }
    let current = created;
    for (const action of m.moderation) current = (await db.transaction((tx) => services.submissions.moderate(tx, actor, book.slug, created.id, action))).submission;
    submissions.push({ id: current.id, status: current.status, is_pinned: current.is_pinned, is_private: current.is_private, media });
  }

  const base = config.http.publicUrl;
  const auth = `-H 'Authorization: Bearer ${apiKey}'`;
  const pending = submissions.find((s) => s.status === 'pending' && !s.is_private)!;
  const tryThese = [
    `curl -s '${base}/api/v1/books/${book.slug}/submissions/?limit=2' ${auth}`,
    `curl -s -X POST '${base}/api/v1/books/${book.slug}/submissions/' ${auth} -H 'Content-Type: application/json' -H 'Idempotency-Key: ${randomUUID()}' -d '{"text_content": "Happy birthday, Grandma! Sent from curl.", "contributor_name": "Me"}'`,
    `curl -s -X POST '${base}/api/v1/books/${book.slug}/submissions/${pending.id}/approve/' ${auth} -H 'Idempotency-Key: ${randomUUID()}'`,
  ];
  const docsUrl = `${base}/api/v1/docs`;
  const webhook = await demoWebhookEndpoint(db, services, actor);
  // The book is not public: its mail address carries the key, as its email channel row shows it.
  const [keyed] = await db.query<{ is_public: boolean; form_key: string }>(`SELECT is_public, form_key FROM books WHERE slug = $1`, [book.slug]);
  const mailTo = `${mailLocalPart({ slug: book.slug, is_public: keyed.is_public, form_key: keyed.form_key })}@${config.messaging.inboundMailDomain}`;
  return {
    output: {
      user: { id: user.id, email: user.email, password },
      api_key: apiKey,
      book: { slug: book.slug, title: book.title, plan: book.plan },
      submissions,
      docs_url: docsUrl,
      openapi_url: `${base}/api/v1/openapi.json`,
      sign_in_url: `${base}/accounts/login/`,
      try: tryThese,
      webhook_endpoint: webhook,
    },
    hints: [
      `Demo ready: ${user.email} owns "${book.title}" (plan ${book.plan}) with ${submissions.length} memories, one with a photo.`,
      `Start the service (\`npm start\`, or \`npx memorybook serve\`), then open ${docsUrl} and authorize with the API key:`,
      `  ${apiKey}`,
      'Three calls to try (the second replays its first answer when sent twice with the same Idempotency-Key):',
      ...tryThese.map((c) => `  ${c}`),
      ...webhookHints(webhook, base, auth),
      ...channelHints(config),
      `Memories by email: start with the SMTP receiver (\`SMTP_INBOUND_PORT=2525 npx memorybook serve\`), then mail ${mailTo}:`,
      `  swaks --server 127.0.0.1:${config.mailInbound.port ?? 2525} --from you@localhost --to ${mailTo} --header 'Subject: A memory' --body 'Sent by email.' --attach @photo.jpg`,
    ],
  };
}

/** Where the demo's events go: a receiver on this machine, which WEBHOOK_ALLOW_PRIVATE must allow. */
const DEMO_RECEIVER_URL = 'http://127.0.0.1:8787/memorybook-events';

/**
 * An endpoint to a local receiver, so the changes the demo suggests arrive as
 * signed events; null when WEBHOOK_ALLOW_PRIVATE does not allow 127.0.0.1
 * (the hints then say how).
 */
async function demoWebhookEndpoint(db: Db, services: Services, actor: Actor): Promise<{ id: string; url: string; secret: string } | null> {
  try {
    await services.webhookEndpoints.checkUrl(DEMO_RECEIVER_URL);
  } catch (err) {
    if (err instanceof AppError && err.code === 'validation_failed') return null;
    throw err;
  }
  const created = await db.transaction((tx) =>
    services.webhookEndpoints.createEndpoint(tx, actor, { url: DEMO_RECEIVER_URL, description: 'memorybook demo: a receiver on this machine' }),
  );
  return { id: created.id, url: created.url, secret: created.secret };
}

function webhookHints(webhook: { url: string; secret: string } | null, base: string, auth: string): string[] {
  const receiver = `node -e "require('http').createServer((q,s)=>{let b='';q.on('data',c=>b+=c).on('end',()=>{console.log(q.headers['webhook-id'],b);s.end()})}).listen(8787)"`;
  if (webhook) {
    return [
      `Events (a memory arriving, approved, an export ready…) are sent, signed, to ${webhook.url}; its secret, shown this once: ${webhook.secret}`,
      `  A receiver that prints them: ${receiver}`,
    ];
  }
  return [
    `Events: set WEBHOOK_ALLOW_PRIVATE=127.0.0.1/32 and run the demo again for an endpoint to a receiver on this machine, or add one of yours (https, public):`,
    `  curl -s -X POST '${base}/api/v1/webhook_endpoints/' ${auth} -H 'Content-Type: application/json' -H 'Idempotency-Key: ${randomUUID()}' -d '{"url": "https://example.com/memorybook-events"}'`,
  ];
}

/** Where each message provider must post, or what turns it on (photos, voice notes and videos come along with the words). */
function channelHints(config: Config): string[] {
  const base = config.http.publicUrl;
  const m = config.messaging;
  return [
    'Memories by message (README, Configuration):',
    m.twilio
      ? `  SMS/MMS: set the Twilio number's incoming-message webhook (HTTP POST) to ${base}/webhooks/twilio/sms/`
      : '  SMS/MMS: set TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM_NUMBER',
    m.telegram
      ? `  Telegram: call setWebhook with url ${base}/webhooks/telegram/ and secret_token set to TELEGRAM_WEBHOOK_SECRET${m.telegram.webhookSecret ? '' : ' (not set yet: every update is refused)'}`
      : '  Telegram: set TELEGRAM_BOT_USERNAME, TELEGRAM_BOT_TOKEN and TELEGRAM_WEBHOOK_SECRET',
    m.whatsapp
      ? `  WhatsApp: give Meta the callback URL ${base}/webhooks/whatsapp/ with WHATSAPP_VERIFY_TOKEN, and subscribe to "messages"${m.whatsapp.invitationTemplate ? '' : '; set WHATSAPP_INVITATION_TEMPLATE to invite numbers over it'}`
      : '  WhatsApp: set WHATSAPP_PHONE_NUMBER, WHATSAPP_PHONE_NUMBER_ID, WHATSAPP_ACCESS_TOKEN, WHATSAPP_APP_SECRET and WHATSAPP_VERIFY_TOKEN',
  ];
}

/** Runs the demo on the configured database (migrating it first); refuses one that already has users unless forced. */
export async function runDemo(config: Config, options: DemoOptions = {}): Promise<DemoResult> {
  const db = await createDb(config);
  try {
    await migrate(db);
    // Media uploads enqueue their processing (done here too) and approvals their share cards: the queue is needed for the sends.
    // Its log goes to stderr: stdout carries only the result.
    const queue = createQueue({ db, config, log: pino({ level: config.logLevel, base: { component: 'jobs' } }, pino.destination(2)) });
    const services = createServices({ config, db, queue });
    const users = await services.users.countUsers();
    if (users > 0 && !options.force) {
      throw new DemoRefused(
        `this database already has ${users} user${users === 1 ? '' : 's'}; the demo is meant for an empty one. ` +
          'Point DATA_DIR (or DATABASE_URL) at a fresh database, or pass --force to add the demo user and book anyway.',
      );
    }
    await queue.start();
    try {
      return await seed(db, services, config);
    } finally {
      await queue.stop();
    }
  } finally {
    await db.close();
  }
}
