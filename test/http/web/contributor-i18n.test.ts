/**
 * The contributor pages in the contributor's language: one ICU catalogue per
 * language, complete; the language chosen from the switch, the book's
 * language (settings.language) and Accept-Language; German, Arabic and
 * Japanese pages checked for lang, dir, translated text and CLDR plurals.
 */
import { IntlMessageFormat } from 'intl-messageformat';
import { beforeAll, describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { catalogue } from '../../../src/lib/i18n/catalogues/index.js';
import { acceptedLanguages, chooseLanguage, LANGUAGES, textLanguage, translator } from '../../../src/web/i18n/i18n.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newUser } from '../../helpers/factories.js';
import type { Part } from '../../helpers/multipart.js';
import { addedMail, invitationMail } from '../../../src/services/invitations/invitation-messages.js';
import { formPathOf, queuedMailsTo, webClient } from './web-client.js';

/** The argument and tag names a message uses, and its plural messages' categories. */
function shape(message: string, lang: string) {
  const args = new Set<string>();
  const plurals: string[][] = [];
  const walk = (els: any[]) => {
    for (const el of els) {
      if (el.type !== 0 && el.type !== 7 && typeof el.value === 'string') args.add(el.value); // 0 literal, 7 pound
      if (el.options) {
        if (el.type === 6) plurals.push(Object.keys(el.options));
        for (const o of Object.values<any>(el.options)) walk(o.value);
      }
      if (el.children) walk(el.children);
    }
  };
  walk(new IntlMessageFormat(message, lang).getAst() as any[]);
  return { args: [...args].sort(), plurals };
}

describe('the catalogues', () => {
  it('one per language, each with exactly the English keys, the same arguments and tags, and every CLDR plural category', () => {
    const files = readdirSync(new URL('../../../src/lib/i18n/catalogues/', import.meta.url)).filter((f) => f.endsWith('.json'));
    expect(files.map((f) => f.replace(/\.json$/, '')).sort()).toEqual([...LANGUAGES].sort());
    expect(LANGUAGES).toHaveLength(16);
    const en = catalogue('en');
    const keys = Object.keys(en).sort();
    for (const lang of LANGUAGES) {
      const cat = catalogue(lang) as Record<string, string>;
      expect(Object.keys(cat).sort(), `${lang}: keys`).toEqual(keys);
      const categories = new Intl.PluralRules(lang).resolvedOptions().pluralCategories;
      for (const key of keys) {
        expect(typeof cat[key] === 'string' && cat[key].trim() !== '', `${lang} ${key}: empty`).toBe(true);
        const mine = shape(cat[key], lang);
        expect(mine.args, `${lang} ${key}: arguments`).toEqual(shape((en as Record<string, string>)[key], 'en').args);
        for (const options of mine.plurals) {
          for (const c of categories) expect(options, `${lang} ${key}: plural category ${c}`).toContain(c);
        }
      }
      // Not English by mistake: the page's own words differ from the English ones (the brand aside).
      if (lang !== 'en') expect(cat['form.send'], lang).not.toBe(en['form.send']);
    }
  });

  it('plurals by CLDR: German one/other, Arabic six forms, Japanese one form, Russian and Polish few/many', () => {
    const retry = (lang: any, minutes: number) => translator(lang).t('wait.retry', { minutes });
    expect(retry('de', 1)).toContain('in 1 Minute noch');
    expect(retry('de', 5)).toContain('in 5 Minuten noch');
    expect(retry('ar', 1)).toContain('دقيقة واحدة');
    expect(retry('ar', 2)).toContain('دقيقتين');
    // Arabic numbers in Arabic digits where the locale writes them so (ar uses arab digits in Intl).
    expect(retry('ar', 3)).toMatch(/[3٣] دقائق/);
    expect(retry('ar', 11)).toMatch(/(11|١١) دقيقة/);
    expect(retry('ja', 1)).toContain('1 分後');
    expect(retry('ja', 7)).toContain('7 分後');
    expect(retry('ru', 2)).toContain('2 минуты');
    expect(retry('ru', 5)).toContain('5 минут.');
    expect(retry('ru', 21)).toContain('21 минуту');
    expect(retry('pl', 22)).toContain('22 minuty');
    expect(retry('pl', 25)).toContain('25 minut.');
    // Numbers by CLDR too: 20,000 characters in German is "20.000".
    expect(translator('de').t('error.textTooLong', { max: 20000, count: 20417 })).toContain('20.000 Zeichen');
  });

  it('Accept-Language, the book language and the switch', () => {
    expect(acceptedLanguages('fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5')).toEqual(['fr-ch', 'fr', 'en', 'de']);
    expect(acceptedLanguages('de;q=0, ja')).toEqual(['ja']);
    expect(chooseLanguage({ acceptLanguage: 'de-DE,de;q=0.9,en;q=0.8' })).toBe('de');
    expect(chooseLanguage({ acceptLanguage: 'sv, ja;q=0.5' })).toBe('ja');
    expect(chooseLanguage({ acceptLanguage: 'sv' })).toBe('en');
    // The book's language when the reader reads it (listed at any weight), or when the browser names nothing we speak.
    expect(chooseLanguage({ acceptLanguage: 'en-US, de;q=0.3', bookLanguage: 'de' })).toBe('de');
    expect(chooseLanguage({ acceptLanguage: 'sv', bookLanguage: 'de' })).toBe('de');
    expect(chooseLanguage({ acceptLanguage: 'fr', bookLanguage: 'de' })).toBe('fr');
    // The switch wins, then its cookie; nonsense is ignored.
    expect(chooseLanguage({ chosen: 'ar', cookie: 'ja', acceptLanguage: 'de', bookLanguage: 'fr' })).toBe('ar');
    expect(chooseLanguage({ chosen: 'xx', cookie: 'ja', acceptLanguage: 'de' })).toBe('ja');
  });

  it('someone’s own text gets its language and direction from its letters', () => {
    expect(textLanguage('סבתא רוזה בת 90!')).toEqual({ lang: 'he', dir: 'rtl' });
    expect(textLanguage('عيد ميلاد سعيد')).toEqual({ lang: 'ar', dir: 'rtl' });
    expect(textLanguage('おばあちゃんの90歳')).toEqual({ lang: 'ja', dir: 'ltr' });
    expect(textLanguage('奶奶九十大寿')).toEqual({ lang: 'zh', dir: 'ltr' });
    expect(textLanguage('Бабусі Олі — 90')).toEqual({ lang: 'uk', dir: 'ltr' });
    expect(textLanguage('Oma wird 90', 'de')).toEqual({ lang: 'de', dir: 'auto' });
    expect(textLanguage('Grandma turns 90')).toEqual({ lang: undefined, dir: 'auto' });
  });
});

describe('the form in German, Arabic and Japanese', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ worker: false });
  });

  async function book(o: { title: string; language?: string }) {
    const owner = await newUser(t);
    const res = await t.post('/api/v1/books/', { title: o.title, ...(o.language ? { settings: { language: o.language } } : {}) }, { token: owner.token });
    expect(res.status).toBe(201);
    return { slug: res.body.slug as string, path: await formPathOf(t, res.body.slug), owner };
  }

  const words = (): Part[] => [
    { name: 'name', data: '' },
    { name: 'text', data: 'Ein Sommer am See.' },
    { name: 'photo', filename: '', contentType: 'application/octet-stream', data: '' },
  ];

  const cases = [
    { lang: 'de', accept: 'de-DE,de;q=0.9', dir: 'ltr', heading: 'Eine Erinnerung teilen', send: 'Erinnerung senden', thanks: 'Vielen Dank!', error: 'Fehler: ', missing: 'Bitte geben Sie Ihren Namen an.', summary: 'Es gibt ein Problem', quote: ['„', '“'] },
    { lang: 'ar', accept: 'ar-EG,ar;q=0.9,en;q=0.5', dir: 'rtl', heading: 'شارك ذكرى', send: 'أرسل ذكراي', thanks: 'شكرًا لك!', error: 'خطأ: ', missing: 'يُرجى كتابة اسمك.', summary: 'هناك مشكلة', quote: ['«', '»'] },
    { lang: 'ja', accept: 'ja-JP,ja;q=0.9', dir: 'ltr', heading: '思い出を共有しましょう', send: '思い出を送る', thanks: 'ありがとうございます！', error: 'エラー: ', missing: 'お名前を入力してください。', summary: '問題があります', quote: ['「', '」'] },
  ] as const;

  for (const c of cases) {
    it(`${c.lang}: lang, dir, the words, the errors, the thanks page`, async () => {
      const b = await book({ title: 'סבתא רוזה בת 90!' });
      const client = webClient(t);
      const page = await client.get(b.path, { 'accept-language': c.accept });
      expect(page.status).toBe(200);
      expect(page.headers['content-language']).toBe(c.lang);
      expect(page.headers.vary).toMatch(/Accept-Language/);
      expect(page.text).toContain(`<html lang="${c.lang}" dir="${c.dir}">`);
      expect(page.text).toContain(`<h2 id="form-title">${c.heading}</h2>`);
      expect(page.text).toContain(`>${c.send}</button>`);
      // The Hebrew title keeps its own language and direction on any page.
      expect(page.text).toContain('<h1 class="book-title" dir="rtl" lang="he">סבתא רוזה בת 90!</h1>');
      // The switch: every language, named in itself, the current one selected.
      expect(page.text).toMatch(new RegExp(`<option value="${c.lang}" lang="${c.lang}" selected>`));
      expect(page.text).toContain('<option value="uk" lang="uk">Українська</option>');

      // A returned form: "Error:" in the title, the summary, the field's message, all in the language.
      const refused = await client.submitMultipart(b.path, words(), { headers: { 'accept-language': c.accept } });
      expect(refused.status).toBe(400);
      expect(refused.text).toContain(`<title>${c.error}`);
      expect(refused.text).toContain(`>${c.summary}</h2>`);
      expect(refused.text).toContain(`<a href="#name">${c.missing}</a>`);
      expect(refused.text).toContain('Ein Sommer am See.</textarea>');

      const sent = await client.submitMultipart(b.path, [{ name: 'name', data: 'Mia' }, ...words().slice(1)], { headers: { 'accept-language': c.accept } });
      expect(sent.status).toBe(303);
      const thanks = await client.get(sent.headers.location as string, { 'accept-language': c.accept });
      expect(thanks.text).toContain(`<html lang="${c.lang}" dir="${c.dir}">`);
      expect(thanks.text).toContain(`>${c.thanks}</h2>`);
      // The title quoted in the thanks sentence is isolated, in its own direction and language.
      expect(thanks.text).toContain(`${c.quote[0]}<bdi dir="rtl" lang="he">סבתא רוזה בת 90!</bdi>${c.quote[1]}`);
    });
  }

  it('the book’s language, Accept-Language, and the switch kept for the post and the thanks page', async () => {
    const b = await book({ title: 'Oma wird 90', language: 'de' });
    const c = webClient(t);
    // No Accept-Language: the book's language; the title takes it too.
    const page = await c.get(b.path);
    expect(page.text).toContain('<html lang="de" dir="ltr">');
    expect(page.text).toContain('<h1 class="book-title" dir="auto" lang="de">Oma wird 90</h1>');
    // A French browser: French.
    expect((await c.get(b.path, { 'accept-language': 'fr' })).text).toContain('<html lang="fr" dir="ltr">');
    // The switch (a GET form keeping the key) picks Japanese, and it is remembered.
    const key = new URL(b.path, 'http://x').searchParams.get('key')!;
    expect(page.text).toContain(`<input type="hidden" name="key" value="${key}">`);
    const switched = await c.get(`${b.path}&lang=ja`, { 'accept-language': 'fr' });
    expect(switched.text).toContain('<html lang="ja" dir="ltr">');
    expect(switched.cookies.mb_lang.value).toBe('ja');
    const again = await c.get(b.path, { 'accept-language': 'fr' });
    expect(again.text).toContain('<html lang="ja" dir="ltr">');
    const sent = await c.submitMultipart(b.path, [{ name: 'name', data: 'Mia' }, ...words().slice(1)]);
    expect((await c.get(sent.headers.location as string)).text).toContain('ありがとうございます！');
  });

  it('settings.language must be one of the languages', async () => {
    const owner = await newUser(t);
    const res = await t.post('/api/v1/books/', { title: 'X', settings: { language: 'xx' } }, { token: owner.token });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.details.offered).toEqual([...LANGUAGES]);
    const ok = await t.post('/api/v1/books/', { title: 'Y', settings: { language: 'ar' } }, { token: owner.token });
    expect(ok.status).toBe(201);
    expect(ok.body.settings.language).toBe('ar');
    const closed = await webClient(t).get('/b/no-such-book/', { 'accept-language': 'ar' });
    expect(closed.status).toBe(404);
    expect(closed.text).toContain('<html lang="ar" dir="rtl">');
  });

  it('the invitation mail in the book’s language: German, Arabic, Japanese (subject, words, CLDR plural of days, long date)', async () => {
    const expected = {
      de: { subject: 'Olive Owner hat Sie zu „Oma wird 90“ eingeladen', words: ['zum Erinnerungsbuch „Oma wird 90“ Ihre Erinnerungen beizutragen', 'Der Link gilt noch 14 Tage'] },
      ar: { subject: 'Olive Owner يدعوك إلى «Oma wird 90»', words: ['إضافة ذكرياتك إلى كتاب الذكريات', 'يومًا آخر'] },
      ja: { subject: 'Olive Owner さんから「Oma wird 90」への招待が届きました', words: ['への思い出の投稿にあなたを招待しました', 'あと 14 日'] },
    } as const;
    for (const [lang, e] of Object.entries(expected)) {
      const owner = await newUser(t, { firstName: 'Olive', lastName: 'Owner' });
      const res = await t.post('/api/v1/books/', { title: 'Oma wird 90', settings: { language: lang } }, { token: owner.token });
      const to = `invitee-${lang}-${Date.now()}@example.test`;
      const inv = await t.post(`/api/v1/books/${res.body.slug}/invitations/`, { identifier_type: 'email', identifier: to, role: 'contributor' }, { token: owner.token });
      expect(inv.status).toBe(201);
      const [mail] = await queuedMailsTo(t, to);
      expect(mail.subject.endsWith(e.subject.slice('Olive Owner'.length)), `${lang}: ${mail.subject}`).toBe(true);
      for (const w of e.words) expect(mail.text, lang).toContain(w);
      expect(mail.text).toMatch(/\/invitations\/[A-Za-z0-9_-]{43}\//);
      // The date in the language's own long form.
      const long = new Intl.DateTimeFormat(lang, { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' }).format(new Date(inv.body.expires_at));
      expect(mail.text, lang).toContain(long);
    }
  });

  it('plurals of the days left by CLDR, and the "added" mail', () => {
    const facts = { bookTitle: 'Oma wird 90', inviterName: 'Olive', role: 'contributor' as const, expiresAt: '2026-12-10T12:00:00Z', homeUrl: 'https://x.test/', acceptUrl: 'https://x.test/invitations/t/' };
    const at = (days: number) => new Date(Date.parse(facts.expiresAt) - days * 86_400_000);
    expect(invitationMail('a@x.test', { ...facts, language: 'de' }, at(1)).text).toContain('noch 1 Tag,');
    expect(invitationMail('a@x.test', { ...facts, language: 'ar' }, at(1)).text).toContain('يومًا واحدًا بعد');
    expect(invitationMail('a@x.test', { ...facts, language: 'ar' }, at(2)).text).toContain('يومين آخرين');
    expect(invitationMail('a@x.test', { ...facts, language: 'ar' }, at(3)).text).toMatch(/(3|٣) أيام أخرى/);
    expect(invitationMail('a@x.test', { ...facts, language: 'ru' }, at(5)).text).toContain('ещё 5 дней');
    expect(invitationMail('a@x.test', { ...facts, language: 'ja' }, at(1)).text).toContain('あと 1 日');
    expect(invitationMail('a@x.test', { ...facts, language: 'ja' }, at(1)).headers).toEqual({ 'Content-Language': 'ja' });
    // English stays as it was, straight quotes and all.
    expect(invitationMail('a@x.test', facts, at(14)).subject).toBe('Olive invited you to "Oma wird 90"');
    expect(addedMail('a@x.test', { ...facts, language: 'de' }).subject).toBe('Sie wurden zu „Oma wird 90“ hinzugefügt');
    expect(addedMail('a@x.test', { ...facts, language: 'he', role: 'admin' }).text).toContain('כמנהל/ת');
  });

  it('the invitation page in German, Arabic and Japanese: lang, dir, words, the date by CLDR, the problem pages', async () => {
    const owner = await newUser(t, { firstName: 'Olive', lastName: 'Owner' });
    const res = await t.post('/api/v1/books/', { title: 'סבתא רוזה בת 90!' }, { token: owner.token });
    const to = `invitee-page-${Date.now()}@example.test`;
    const inv = await t.post(`/api/v1/books/${res.body.slug}/invitations/`, { identifier_type: 'email', identifier: to, role: 'contributor' }, { token: owner.token });
    const [mail] = await queuedMailsTo(t, to);
    const path = /\/invitations\/[A-Za-z0-9_-]{43}\//.exec(mail.text)![0];
    const cases = [
      { lang: 'de', dir: 'ltr', accept: 'de', words: ['Um anzunehmen, erstellen Sie ein kostenloses Konto', '<strong>Olive Owner</strong> hat Sie eingeladen', 'Ich habe schon ein Konto'], nav: 'Anmelden', expired: 'Einladungen gelten 14 Tage.' },
      { lang: 'ar', dir: 'rtl', accept: 'ar', words: ['دعاك <strong>Olive Owner</strong>', 'لدي حساب بالفعل'], nav: 'تسجيل الدخول', expired: 'يومًا' },
      { lang: 'ja', dir: 'ltr', accept: 'ja', words: ['<strong>Olive Owner</strong> さんが', 'アカウントを持っています'], nav: 'サインイン', expired: '14 日' },
    ];
    for (const c of cases) {
      const page = await webClient(t).get(path, { 'accept-language': c.accept });
      expect(page.status).toBe(200);
      expect(page.text).toContain(`<html lang="${c.lang}" dir="${c.dir}">`);
      for (const w of c.words) expect(page.text, c.lang).toContain(w);
      expect(page.text).toContain(`>${c.nav}</a>`);
      expect(page.text).toContain('<h1 dir="rtl" lang="he">סבתא רוזה בת 90!</h1>');
      const long = new Intl.DateTimeFormat(c.lang, { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' }).format(new Date(inv.body.expires_at));
      expect(page.text, c.lang).toContain(long);
    }
    // A problem page in the reader's language, with the invitation's lifetime by CLDR plurals.
    await t.db.query(`UPDATE invitations SET expires_at = now() - interval '1 minute' WHERE id = $1`, [inv.body.id]);
    for (const c of cases) {
      const page = await webClient(t).get(path, { 'accept-language': c.accept });
      expect(page.status).toBe(410);
      expect(page.text).toContain(`<html lang="${c.lang}" dir="${c.dir}">`);
      expect(page.text, c.lang).toContain(c.expired);
    }
  });

  it('the sign-up page in German, Arabic and Japanese, with its errors', async () => {
    const cases = [
      { lang: 'de', dir: 'ltr', title: 'Konto erstellen', hint: 'Mindestens 8 Zeichen.', error: 'Das Passwort muss mindestens 8 Zeichen lang sein.', prefix: 'Fehler' },
      { lang: 'ar', dir: 'rtl', title: 'إنشاء حساب', hint: '8 أحرف على الأقل.', error: 'يجب أن تتكوّن كلمة المرور من 8 أحرف على الأقل.', prefix: 'خطأ' },
      { lang: 'ja', dir: 'ltr', title: 'アカウントを作成', hint: '8 文字以上。', error: 'パスワードは 8 文字以上にしてください。', prefix: 'エラー' },
    ];
    for (const c of cases) {
      const client = webClient(t);
      const page = await client.get('/accounts/signup/', { 'accept-language': c.lang });
      expect(page.text).toContain(`<html lang="${c.lang}" dir="${c.dir}">`);
      expect(page.text).toContain(`<h1>${c.title}</h1>`);
      expect(page.text).toContain(c.hint);
      const res = await client.submit('/accounts/signup/', { email: `x-${c.lang}-${Date.now()}@example.test`, password: 'short' }, { headers: { 'accept-language': c.lang } });
      expect(res.status).toBe(400);
      expect(res.text).toContain(`<title>${c.prefix}: ${c.title}`);
      expect(res.text).toContain(`<a href="#password">${c.error}</a>`);
      expect(res.text).toContain(`<span class="visually-hidden">${c.prefix}:</span> ${c.error}`);
    }
  });
});
