/**
 * An invitation from the link in the real mail: the owner invites an email
 * address with no account through the API, the mail arrives at the SMTP test
 * server, and the invitee opens the link in Chromium, signs up, comes back,
 * accepts, and is a member.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp-server.js';
import { api, HAS_CHROMIUM, newApiUser, startBrowserEnv, watchProblems, type BrowserEnv } from './browser-env.js';

describe.skipIf(!HAS_CHROMIUM)('invitation acceptance in a real browser', () => {
  let env: BrowserEnv;
  let smtp: TestSmtpServer;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    env = await startBrowserEnv({ SMTP_URL: smtp.url, MAIL_FROM: 'Memory Book <books@example.test>' });
  });

  afterAll(async () => {
    await env?.close();
    await smtp?.close();
  });

  it('from the mail’s link: sign up, come back, accept, and land as a member', async () => {
    const owner = await newApiUser(env, { firstName: 'Olive', lastName: 'Owner' });
    const book = await api(env, owner.token, 'POST', '/books/', { title: 'Grandma Rose turns 90' });
    expect(book.status).toBe(201);
    const slug = book.body.slug as string;
    const invitee = `invitee-${randomUUID().slice(0, 8)}@example.test`;
    const invitation = await api(env, owner.token, 'POST', `/books/${slug}/invitations/`, { identifier_type: 'email', identifier: invitee, role: 'contributor' });
    expect(invitation.status).toBe(201);
    expect(invitation.body.status).toBe('pending');

    // The mail, through the queue and real SMTP.
    await smtp.waitFor(1, 30_000);
    const mail = smtp.received.find((m) => m.to.includes(invitee))!;
    expect(mail.subject).toBe('Olive Owner invited you to "Grandma Rose turns 90"');
    const link = new RegExp(`${env.base}/invitations/[A-Za-z0-9_-]{43}/`).exec(mail.text)?.[0];
    expect(link, mail.text).toBeTruthy();

    const context = await env.browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    const problems = watchProblems(page);

    await page.goto(link!);
    expect(await page.textContent('h1')).toBe('Grandma Rose turns 90');
    expect(await page.textContent('.invite')).toContain('Olive Owner invited you to join this memory book as a contributor.');

    await Promise.all([page.waitForURL(/\/accounts\/signup\/\?next=/), page.click('.invite a:has-text("Create an account")')]);
    await page.fill('#email', invitee);
    await page.fill('#password', 'a long enough password');
    await page.fill('#first_name', 'Ivy');
    // Signed up, the browser comes straight back to the invitation.
    await Promise.all([page.waitForURL(link!), page.click('form[action="/accounts/signup/"] button[type=submit]')]);
    expect(await page.textContent('.invite')).toContain(`Accepting as ${invitee}`);
    await page.screenshot({ path: '/tmp/invitation-page.png', fullPage: true });

    await Promise.all([page.waitForURL(link!), page.click('button:has-text("Accept invitation")')]);
    expect(await page.textContent('h1')).toBe('Welcome to Grandma Rose turns 90');
    expect(await page.textContent('[role=status]')).toContain('You are now a contributor of this book.');
    await page.screenshot({ path: '/tmp/invitation-welcome.png', fullPage: true });

    // A member now, as the owner sees it through the API, and the invitation is accepted.
    const members = await api(env, owner.token, 'GET', `/books/${slug}/members/`);
    expect(members.body.items.find((m: any) => m.email === invitee)).toMatchObject({ role: 'contributor', first_name: 'Ivy' });
    const invitations = await api(env, owner.token, 'GET', `/books/${slug}/invitations/?status=accepted`);
    expect(invitations.body.items.map((i: any) => i.id)).toEqual([invitation.body.id]);

    expect(invitations.body.items[0].accepted_by).toBe(members.body.items.find((m: any) => m.email === invitee).user_id);

    // The welcome leads to the book's contributor form, with the form key (the book is not public).
    await Promise.all([page.waitForURL(new RegExp(`^${env.base}/b/${slug}/\\?key=[A-Za-z0-9_-]{16,}$`)), page.click('.invite a:has-text("Share a memory")')]);
    expect(await page.textContent('.book-title')).toBe('Grandma Rose turns 90');

    expect(problems).toEqual([]);
    await context.close();
  });

  it('a forwarded link opened by another account: the page says which address it is for, and nothing changes', async () => {
    const owner = await newApiUser(env, { firstName: 'Olive', lastName: 'Owner' });
    const book = await api(env, owner.token, 'POST', '/books/', { title: 'Lake House' });
    const slug = book.body.slug as string;
    const invitee = `invitee-${randomUUID().slice(0, 8)}@example.test`;
    const invitation = await api(env, owner.token, 'POST', `/books/${slug}/invitations/`, { identifier_type: 'email', identifier: invitee, role: 'admin' });
    expect(invitation.status).toBe(201);
    const mail = await (async () => {
      for (let i = 0; i < 150; i++) {
        const m = smtp.received.find((r) => r.to.includes(invitee));
        if (m) return m;
        await new Promise((r) => setTimeout(r, 200));
      }
      throw new Error('no invitation mail');
    })();
    const link = new RegExp(`${env.base}/invitations/[A-Za-z0-9_-]{43}/`).exec(mail.text)![0];

    // Someone else, with an account of their own, signs in and opens the forwarded link.
    const other = await newApiUser(env, { firstName: 'Mallory' });
    const context = await env.browser.newContext();
    const page = await context.newPage();
    const problems = watchProblems(page);
    await page.goto(`${env.base}/accounts/login/?next=${encodeURIComponent(new URL(link).pathname)}`);
    await page.fill('#email', other.email);
    await page.fill('#password', 'a long enough password');
    await Promise.all([page.waitForURL(link), page.click('form[action="/accounts/login/"] button[type=submit]')]);
    expect(await page.textContent('h1')).toBe('This invitation is for another address');
    expect(await page.textContent('.invite')).toContain(`It was sent to ${invitee}`);
    expect(await page.textContent('.invite')).toContain(`You are signed in as ${other.email}`);
    expect(await page.locator('button:has-text("Accept invitation")').count()).toBe(0);
    await page.screenshot({ path: '/tmp/invitation-other-address.png', fullPage: true });

    // Nothing changed: still pending, and the other account is not a member.
    const invitations = await api(env, owner.token, 'GET', `/books/${slug}/invitations/`);
    expect(invitations.body.items.find((i: any) => i.id === invitation.body.id)).toMatchObject({ status: 'pending', accepted_by: null });
    const members = await api(env, owner.token, 'GET', `/books/${slug}/members/`);
    expect(members.body.items.map((m: any) => m.email)).toEqual([owner.email]);

    // Signing out from that page, the invitee can then sign up with the invited address and accept.
    await Promise.all([page.waitForURL(`${env.base}/accounts/login/`), page.click('.invite form[action="/accounts/logout/"] button[type=submit]')]);
    await page.goto(link);
    await Promise.all([page.waitForURL(/\/accounts\/signup\/\?next=/), page.click('.invite a:has-text("Create an account")')]);
    expect(await page.inputValue('#email')).toBe(invitee);
    await page.fill('#password', 'a long enough password');
    await Promise.all([page.waitForURL(link), page.click('form[action="/accounts/signup/"] button[type=submit]')]);
    await Promise.all([page.waitForURL(link), page.click('button:has-text("Accept invitation")')]);
    expect(await page.textContent('h1')).toBe('Welcome to Lake House');

    expect(problems).toEqual([]);
    await context.close();
  });
});
