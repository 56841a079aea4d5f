/**
 * The onboarding mails in the language of the page the account was made on:
 * sign up on a German, an Arabic and a Japanese page, receive the welcome
 * mail and (days later) the follow-up over real SMTP, in that language, with
 * `lang` and `dir` on the HTML part, plain words and the contributor home
 * link, and an unsubscribe link that opens a page in the same language and works.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { eventually } from '../../helpers/eventually.js';
import { startSmtpServer, type ReceivedMail, type TestSmtpServer } from '../../helpers/smtp-server.js';
import { newBook, newUser } from '../../helpers/factories.js';
import { confirmationPathOf, queuedMailsTo, webClient } from '../web/web-client.js';
import { mailHeader, makeDelayedJobsDue } from './account-helpers.js';

let t: TestApp;
let smtp: TestSmtpServer;
beforeAll(async () => {
  smtp = await startSmtpServer();
  t = await buildTestApp({ worker: true, env: { SMTP_URL: smtp.url, MAIL_FROM: 'Memory Book <books@example.test>' } });
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

const CASES = [
  {
    lang: 'de',
    dir: 'ltr',
    name: 'Greta',
    greeting: 'Hallo Greta,',
    welcome: { subject: 'Willkommen bei Memory Book', words: ['Ein Erinnerungsbuch sammelt die Geschichten', 'Auf Ihrer Startseite finden Sie die Bücher'] },
    followUp: { subject: 'Drei Wege, Ihr Erinnerungsbuch zu füllen', words: ['Teilen Sie den Link des Buchs im Gruppenchat der Familie', 'Ihre Bücher mit ihren Links:'] },
    footer: 'Diese Tipps abbestellen:',
    page: { heading: 'Keine Tipps für den Einstieg mehr?', button: 'Abbestellen', done: 'Erledigt: Sie bekommen keine Tipps für den Einstieg mehr.' },
  },
  {
    lang: 'ar',
    dir: 'rtl',
    name: 'ليلى',
    greeting: 'مرحبًا ليلى،',
    welcome: { subject: 'مرحبًا بك في Memory Book', words: ['يجمع كتاب الذكريات القصص والأمنيات والصور', 'تعرض صفحتك الرئيسية الكتب التي تشارك فيها'] },
    followUp: { subject: 'ثلاث طرق لملء كتاب ذكرياتك', words: ['شارك رابط الكتاب في مجموعة العائلة', 'كتبك وروابطها:'] },
    footer: 'لإيقاف هذه النصائح:',
    page: { heading: 'هل تريد إيقاف نصائح البدء؟', button: 'إلغاء الاشتراك', done: 'تم: لن تصلك نصائح البدء بعد الآن.' },
  },
  {
    lang: 'ja',
    dir: 'ltr',
    name: '陽子',
    greeting: '陽子 さん、こんにちは。',
    welcome: { subject: 'Memory Book へようこそ', words: ['思い出の本は、友人や家族が', 'あなたのホームには、参加している本'] },
    followUp: { subject: '思い出の本をいっぱいにする 3 つの方法', words: ['家族のグループチャットで本のリンクを共有し', 'あなたの本とそのリンク：'] },
    footer: 'これらのヒントの配信を停止するには：',
    page: { heading: '使い方のヒントの配信を停止しますか？', button: '配信を停止する', done: '完了しました。使い方のヒントはもう届きません。' },
  },
] as const;

/**
 * Signs up the way a person does on a page in `lang`: the form, then the
 * mailed link, opened on another device whose browser asks for English (the
 * link carries the sign-up page's language).
 */
async function signUpIn(lang: string, firstName: string) {
  const headers = { 'accept-language': lang };
  const email = `onboarding-${lang}-${Date.now()}@example.test`;
  const password = 'a long enough password';
  const client = webClient(t);
  expect((await client.get('/accounts/signup/', headers)).text).toContain(`<html lang="${lang}"`);
  const asked = await client.submit('/accounts/signup/', { email, password, first_name: firstName }, { headers });
  expect(asked.status).toBe(200);
  const path = await confirmationPathOf(t, email);
  const [mail] = await queuedMailsTo(t, email);
  expect(mail.text).toContain(`${path}?lang=${lang}`);
  const elsewhere = webClient(t);
  const english = { 'accept-language': 'en' };
  expect((await elsewhere.get(`${path}?lang=${lang}`, english)).text).toContain(`<html lang="${lang}"`);
  const confirmed = await elsewhere.submit(path, { password }, { headers: english });
  expect(confirmed.status).toBe(303);
  return email;
}

/** What a reader checks in an onboarding mail: subject, language, direction, words, the home link, no developer words. */
function expectOnboardingMail(mail: ReceivedMail, c: (typeof CASES)[number], part: 'welcome' | 'followUp') {
  expect(mail.subject).toBe(c[part].subject);
  expect(mailHeader(mail, 'Content-Language')).toBe(c.lang);
  expect(mail.text.startsWith(`${c.greeting}\n`), mail.text).toBe(true);
  for (const w of c[part].words) expect(mail.text, c.lang).toContain(w);
  expect(mail.text).toContain(c.footer);
  // The contributor home, not the developers' pages.
  expect(mail.text).toMatch(/^http:\/\/localhost:8000\/$/m);
  expect(mail.text).not.toMatch(/API|settings\/tokens/);
  expect(mail.html).toContain(`<div lang="${c.lang}" dir="${c.dir}">`);
  expect(mail.html).toContain('<a href="http://localhost:8000/" dir="ltr">http://localhost:8000/</a>');
  expect(mail.html).toContain(c[part].words[0]);
  expect(mailHeader(mail, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
}

describe('onboarding mails in the language of the sign-up page', () => {
  it('German, Arabic and Japanese: welcome now, follow-up later, both translated; the unsubscribe link opens in that language and works', async () => {
    const emails = new Map<string, string>();
    for (const c of CASES) emails.set(c.lang, await signUpIn(c.lang, c.name));
    const mailsTo = (c: (typeof CASES)[number]) => smtp.received.filter((m) => m.to.includes(emails.get(c.lang)!));
    const byLang = (c: (typeof CASES)[number], subject: string) => mailsTo(c).filter((m) => m.subject === subject);

    for (const c of CASES) {
      const [welcome] = await eventually(async () => byLang(c, c.welcome.subject), (m) => m.length > 0);
      expectOnboardingMail(welcome, c, 'welcome');
    }
    // The follow-up waits days in the queue, its words already in the reader's language.
    expect(await makeDelayedJobsDue(t, 'mail.send')).toBeGreaterThanOrEqual(CASES.length);
    for (const c of CASES) {
      const [followUp] = await eventually(async () => byLang(c, c.followUp.subject), (m) => m.length > 0);
      expectOnboardingMail(followUp, c, 'followUp');
    }

    for (const c of CASES) {
      const [welcome] = byLang(c, c.welcome.subject);
      const link = new RegExp(`http://localhost:8000(/accounts/unsubscribe/\\?token=[0-9a-f-]{36}&lang=${c.lang})$`, 'm').exec(welcome.text)?.[1];
      expect(link, welcome.text).toBeDefined();
      // Opened from the mail, in a browser that asks for English: the page speaks the mail's language.
      const client = webClient(t);
      const page = await client.get(link!, { 'accept-language': 'en' });
      expect(page.status).toBe(200);
      expect(page.text).toContain(`<html lang="${c.lang}" dir="${c.dir}">`);
      expect(page.text).toContain(`<h1>${c.page.heading}</h1>`);
      expect(page.text).toContain(`>${c.page.button}</button>`);
      const token = new URLSearchParams(link!.split('?')[1]).get('token')!;
      const done = await client.submit('/accounts/unsubscribe/', { token }, { headers: { 'accept-language': 'en' } });
      expect(done.status).toBe(200);
      expect(done.text).toContain(`<html lang="${c.lang}" dir="${c.dir}">`);
      expect(done.text).toContain(c.page.done);
      const [user] = await t.db.query<{ id: string }>(`SELECT id FROM users WHERE email = $1`, [emails.get(c.lang)]);
      expect(await t.db.query(`SELECT stream FROM mail_stream_optouts WHERE user_id = $1`, [user.id])).toEqual([{ stream: 'onboarding' }]);
    }
  });

  it('an invitee who signs up from the invitation link on a Hebrew page gets the welcome mail in Hebrew, right to left', async () => {
    const owner = await newUser(t, { firstName: 'Olive' });
    const { slug } = await newBook(t, owner, { title: 'Lake House' });
    const email = `invitee-he-${Date.now()}@example.test`;
    const inv = await t.post(`/api/v1/books/${slug}/invitations/`, { identifier_type: 'email', identifier: email, role: 'contributor' }, { token: owner.token });
    expect(inv.status).toBe(201);
    const [invitation] = await queuedMailsTo(t, email);
    const path = /\/invitations\/[A-Za-z0-9_-]{43}\//.exec(invitation.text)![0];
    const client = webClient(t);
    const headers = { 'accept-language': 'he' };
    await client.get(`/accounts/signup/?next=${encodeURIComponent(path)}`, headers);
    // The invited address needs no confirmation: the link proved it.
    const created = await client.submit('/accounts/signup/', { email, password: 'a long enough password', first_name: 'נועה', next: path }, { headers });
    expect(created.status).toBe(303);
    const [welcome] = await eventually(async () => smtp.received.filter((m) => m.to.includes(email) && m.subject === 'ברוכים הבאים ל-Memory Book'), (m) => m.length > 0);
    expect(welcome.text.startsWith('שלום נועה,\n')).toBe(true);
    expect(welcome.text).toContain('בדף הבית שלכם מופיעים הספרים שאתם משתתפים בהם');
    expect(welcome.html).toContain('<div lang="he" dir="rtl">');
    expect(mailHeader(welcome, 'Content-Language')).toBe('he');
  });
});
