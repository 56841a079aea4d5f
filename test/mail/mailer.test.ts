import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboxMailer, createSmtpMailer } from '../../src/mail/mailer.js';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp-server.js';

let smtp: TestSmtpServer;
beforeAll(async () => {
  smtp = await startSmtpServer();
});
afterAll(() => smtp.close());

describe('mailer', () => {
  it('delivers over SMTP to a real server', async () => {
    const mailer = createSmtpMailer(smtp.url, 'Memory Book <no-reply@example.test>');
    await mailer.send({ to: 'ada@example.test', subject: 'Hello Ada', text: 'Line one\nLine two' });
    mailer.close();
    const [mail] = await smtp.waitFor(1);
    expect(mail.to).toEqual(['ada@example.test']);
    expect(mail.from).toBe('no-reply@example.test');
    expect(mail.subject).toBe('Hello Ada');
    expect(mail.text).toContain('Line two');
  });

  it('writes .eml files to the outbox when no SMTP server is configured', async () => {
    const dir = path.join(mkdtempSync(path.join(tmpdir(), 'memorybook-outbox-')), 'outbox');
    const mailer = createOutboxMailer(dir, 'Memory Book <no-reply@example.test>');
    await mailer.send({ to: 'grace@example.test', subject: 'Outbox check', text: 'Stored for the operator' });
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/\.eml$/);
    const eml = readFileSync(path.join(dir, files[0]), 'utf8');
    expect(eml).toContain('To: grace@example.test');
    expect(eml).toContain('Subject: Outbox check');
    expect(eml).toContain('Stored for the operator');
  });

  it('a message sent again under its stable id (a mail job run twice) is one file with one Message-ID', async () => {
    const dir = path.join(mkdtempSync(path.join(tmpdir(), 'memorybook-outbox-')), 'outbox');
    const mailer = createOutboxMailer(dir, 'Memory Book <no-reply@example.test>');
    const message = { to: 'grace@example.test', subject: 'Once', text: 'Only once' };
    const first = await mailer.send(message, { id: 'job-1234' });
    const again = await mailer.send(message, { id: 'job-1234' });
    expect(again.messageId).toBe(first.messageId);
    expect(first.messageId).toBe('<job-1234@example.test>');
    const files = readdirSync(dir);
    expect(files).toEqual(['mail-job-1234.eml']);
    expect(readFileSync(path.join(dir, files[0]), 'utf8')).toContain('Message-ID: <job-1234@example.test>');
  });
});
