/**
 * The pages that were still English, in the reader's language: the home page
 * (signed out and in), sign-in with its errors, sign-out, the address
 * confirmation, and SMS invitations in the book's language; and the form's
 * resumable-upload words (progress at each quarter by CLDR's percent format).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { invitationSms, addedText } from '../../../src/services/invitations/invitation-messages.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { addMember, newBook, newSubmission, newUser } from '../../helpers/factories.js';
import { confirmationPathOf, formPathOf, queuedMailsTo, webClient } from './web-client.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});

const htmlOf = (text: string) => ({
  lang: /<html lang="([^"]+)"/.exec(text)?.[1],
  dir: /<html lang="[^"]+" dir="([^"]+)"/.exec(text)?.[1],
  title: /<title>([^<]*)<\/title>/.exec(text)?.[1],
});

describe('the home page and the account pages in the reader’s language', () => {
  it('German, Arabic and Japanese: lang, dir and the page’s words, from Accept-Language', async () => {
    const cases = [
      { lang: 'de', dir: 'ltr', heading: 'Erinnerungsbücher, gemeinsam geschrieben', signIn: 'Anmelden', mismatch: 'passen zu keinem Konto' },
      { lang: 'ar', dir: 'rtl', heading: 'كتب ذكريات نكتبها معًا', signIn: 'تسجيل الدخول', mismatch: 'لا يطابقان أي حساب' },
      { lang: 'ja', dir: 'ltr', heading: 'みんなで書く思い出の本', signIn: 'サインイン', mismatch: '一致するアカウントはありません' },
    ];
    for (const c of cases) {
      const client = webClient(t);
      const headers = { 'accept-language': `${c.lang},en;q=0.5` };
      const home = await client.get('/', headers);
      expect(home.status).toBe(200);
      expect(home.headers['content-language']).toBe(c.lang);
      expect(htmlOf(home.text)).toMatchObject({ lang: c.lang, dir: c.dir });
      expect(home.text).toContain(c.heading);
      expect(home.text).not.toContain('Memory books, written together');

      const login = await client.get('/accounts/login/', headers);
      expect(htmlOf(login.text)).toMatchObject({ lang: c.lang, dir: c.dir });
      expect(login.text).toContain(c.signIn);
      expect(login.text).not.toContain('New here?');
      const refused = await client.submit('/accounts/login/', { email: 'nobody@example.test', password: 'not the password', next: '/' }, { headers });
      expect(refused.status).toBe(400);
      expect(refused.text).toContain(c.mismatch);
      // GOV.UK's pattern in the page's language: the title starts with its word for "Error".
      expect(htmlOf(refused.text).title).toMatch(new RegExp(`^${(await import('../../../src/web/i18n/i18n.js')).translator(c.lang as 'de').t('error.prefix')}:`));

      const out = await client.get('/accounts/logout/', headers);
      expect(htmlOf(out.text).lang).toBe(c.lang);
    }
  });

  it('signed in: the books, the reader’s role and each memory’s state in German; a Hebrew title isolated with its direction', async () => {
    const owner = await newUser(t);
    const writer = await newUser(t);
    const book = await newBook(t, owner, { title: 'שנה טובה!' });
    await addMember(t, book.slug, writer, 'contributor');
    await newSubmission(t, book.slug, writer, { text: 'Der Garten im Mai' });
    const client = webClient(t);
    await client.get('/accounts/login/');
    expect((await client.submit('/accounts/login/', { email: writer.email, password: writer.password })).status).toBe(303);
    const home = await client.get('/', { 'accept-language': 'de' });
    expect(home.status).toBe(200);
    expect(home.text).toContain('Ihre Bücher');
    expect(home.text).toContain('Sie schreiben in diesem Buch');
    expect(home.text).toContain('Wartet auf Durchsicht');
    expect(home.text).toContain('<bdi dir="rtl" lang="he">שנה טובה!</bdi>');
  });

  it('the address confirmation in Japanese, a wrong password refused in Japanese', async () => {
    const client = webClient(t);
    const headers = { 'accept-language': 'ja' };
    await client.get('/accounts/signup/', headers);
    const email = `confirm-${Date.now()}@example.test`;
    expect((await client.submit('/accounts/signup/', { email, password: 'a long enough password' }, { headers })).status).toBe(200);
    const path = await confirmationPathOf(t, email);
    const page = await client.get(path, headers);
    expect(htmlOf(page.text).lang).toBe('ja');
    expect(page.text).toContain('アドレスの確認');
    const wrong = await client.submit(path, { password: 'not what was chosen' }, { headers });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('登録時に決めたパスワードではありません。');
    const broken = await client.get('/accounts/confirm/not-a-token/', headers);
    expect(broken.status).toBe(404);
    expect(broken.text).toContain('このリンクは使えません');
  });
});

describe('the sign-up mails in the language the sign-up page was shown in', () => {
  type QueuedMail = { subject: string; text: string; headers?: Record<string, string> };
  const mailsTo = async (email: string) => (await queuedMailsTo(t, email)) as QueuedMail[];

  it('the confirmation mail in German, Arabic and Japanese: subject, body with the hours by CLDR plurals, Content-Language', async () => {
    const cases = [
      { lang: 'de', subject: 'Bestätigen Sie Ihre E-Mail-Adresse für Memory Book', body: ['Der Link gilt 48 Stunden.', 'Passwort ein, das Sie gewählt haben'] },
      { lang: 'ar', subject: 'أكّد عنوان بريدك الإلكتروني في Memory Book', body: ['يعمل الرابط 48 ساعة.', 'وأدخل كلمة المرور التي اخترتها'] },
      { lang: 'ja', subject: 'Memory Book のメールアドレスを確認してください', body: ['リンクの有効期間は 48 時間です。', '決めたパスワードを入力してください'] },
    ];
    for (const c of cases) {
      const client = webClient(t);
      const headers = { 'accept-language': `${c.lang},en;q=0.5` };
      await client.get('/accounts/signup/', headers);
      const email = `signup-${c.lang}-${Date.now()}@example.test`;
      expect((await client.submit('/accounts/signup/', { email, password: 'a long enough password' }, { headers })).status).toBe(200);
      const [mail] = await mailsTo(email);
      expect(mail.subject).toBe(c.subject);
      for (const words of c.body) expect(mail.text).toContain(words);
      expect(mail.text).not.toContain('Someone (we hope you)');
      expect(mail.headers?.['Content-Language']).toBe(c.lang);
      // The link in it still confirms, and the page it opens is in the same language.
      const path = await confirmationPathOf(t, email);
      expect(mail.text).toContain(path);
      expect(htmlOf((await client.get(path, headers)).text).lang).toBe(c.lang);
    }
  });

  it('a switch on the page (?lang=) decides over Accept-Language; English stays as it was, without Content-Language', async () => {
    const client = webClient(t);
    await client.get('/accounts/signup/?lang=ja', { 'accept-language': 'de' });
    const email = `signup-switch-${Date.now()}@example.test`;
    await client.submit('/accounts/signup/', { email, password: 'a long enough password' }, { headers: { 'accept-language': 'de' } });
    expect((await mailsTo(email))[0].headers?.['Content-Language']).toBe('ja');

    const english = `signup-en-${Date.now()}@example.test`;
    const plain = webClient(t);
    await plain.get('/accounts/signup/');
    await plain.submit('/accounts/signup/', { email: english, password: 'a long enough password' });
    const [mail] = await mailsTo(english);
    expect(mail.subject).toBe('Confirm your email address for Memory Book');
    expect(mail.text).toContain('The link works for 48 hours.');
    expect(mail.headers).toBeUndefined();
  });

  it('the “someone tried” mail to a taken address, and the “already has an account” page, in German and Arabic', async () => {
    const cases = [
      { lang: 'de', subject: 'Jemand wollte sich mit Ihrer Adresse registrieren', body: 'Es wurde kein neues Konto angelegt.', exists: 'Diese Adresse hat bereits ein Konto: Melden Sie sich stattdessen an.' },
      { lang: 'ar', subject: 'حاول أحدهم التسجيل بعنوانك', body: 'لم يُنشأ أي حساب جديد.', exists: 'لهذا العنوان حساب بالفعل: سجّل الدخول بدلًا من ذلك.' },
    ];
    for (const c of cases) {
      const headers = { 'accept-language': c.lang };
      const taken = await newUser(t);
      const client = webClient(t);
      await client.get('/accounts/signup/', headers);
      await client.submit('/accounts/signup/', { email: taken.email, password: 'a long enough password' }, { headers });
      const [attempt] = await mailsTo(taken.email);
      expect(attempt.subject).toBe(c.subject);
      expect(attempt.text).toContain(c.body);
      expect(attempt.headers?.['Content-Language']).toBe(c.lang);

      // An address that got an account between the sign-up and its confirmation: the page says so in the reader's language.
      const email = `late-${c.lang}-${Date.now()}@example.test`;
      await client.submit('/accounts/signup/', { email, password: 'a long enough password' }, { headers });
      const path = await confirmationPathOf(t, email);
      await newUser(t, { email });
      await client.get(path, headers);
      const exists = await client.submit(path, { password: 'a long enough password' }, { headers });
      expect(exists.status).toBe(409);
      expect(exists.text).toContain(c.exists);
    }
  });
});

describe('SMS in the book’s language', () => {
  const facts = { bookTitle: 'Oma wird 90', inviterName: 'Anna', role: 'contributor' as const, acceptUrl: 'https://example.test/i/abc', expiresAt: '2030-01-01T00:00:00Z', homeUrl: 'https://example.test/' };
  it('English stays as it was; German, Arabic and Japanese are translated, with the role chosen by ICU select', () => {
    expect(invitationSms(facts)).toBe('Anna invited you to add your memories to "Oma wird 90" on Memory Book. Reply with a memory to join, or open https://example.test/i/abc');
    expect(invitationSms({ ...facts, role: 'admin' })).toContain('invited you to help run "Oma wird 90"');
    expect(addedText(facts)).toBe('Anna added you to "Oma wird 90" on Memory Book. Send a memory here any time.');
    expect(invitationSms({ ...facts, language: 'de' })).toBe(
      'Anna hat Sie eingeladen, Erinnerungen zum Buch „Oma wird 90“ beizutragen (Memory Book). Antworten Sie mit einer Erinnerung, um mitzumachen, oder öffnen Sie https://example.test/i/abc',
    );
    expect(invitationSms({ ...facts, language: 'ar' })).toContain('دعاك Anna إلى إضافة ذكرياتك إلى');
    expect(addedText({ ...facts, language: 'ja' })).toBe('Anna さんが Memory Book の「Oma wird 90」にあなたを追加しました。いつでもここに思い出を送れます。');
  });
});

describe('the form’s resumable-upload words', () => {
  it('progress at each quarter in the language’s own percent format (German 25 %, Arabic digits and sign)', async () => {
    const owner = await newUser(t);
    const { slug } = await newBook(t, owner, { title: 'Grandma Rose turns 90' });
    const form = await formPathOf(t, slug);
    const de = await webClient(t).get(form, { 'accept-language': 'de' });
    const pct = (lang: string, f: number) => new Intl.NumberFormat(lang, { style: 'percent' }).format(f);
    expect(pct('de', 0.25)).toBe('25\u00a0%');
    expect(de.text).toContain(`data-msg-p25="${pct('de', 0.25)} Ihres Fotos gesendet"`);
    expect(de.text).toContain(`data-msg-p100="${pct('de', 1)} Ihres Fotos gesendet"`);
    expect(de.text).toContain('role="progressbar" aria-label="Bisher gesendeter Teil des Fotos" aria-valuemin="0" aria-valuemax="100" aria-valuenow="0"');
    expect(de.text).toContain('aria-live="polite"');
    expect(de.text).toContain('>Senden des Fotos abbrechen</button>');
    const ar = await webClient(t).get(form, { 'accept-language': 'ar' });
    expect(ar.text).toContain(`data-msg-p50="أُرسل ${pct('ar', 0.5)} من صورتك"`);
    const ja = await webClient(t).get(form, { 'accept-language': 'ja' });
    expect(ja.text).toContain('data-msg-p75="写真の 75% を送信しました"');
  });
});
