/**
 * The README's "Webhooks and events" receiver runs as written: the block is
 * taken from README.md, type-checked against the built client, started with
 * tsx, registered as an endpoint, and fed real deliveries: it verifies each
 * with standardwebhooks and verifyWebhook, applies newer sequences and skips
 * an older one (a redelivery of the first event).
 */
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, onTestFinished } from 'vitest';
import { freePort } from '../../helpers/spawn-server.js';
import { ownerWithEndpoint, webhookApp } from './webhook-setup.js';

const run = promisify(execFile);

function readmeReceiver(): string {
  const readme = readFileSync('README.md', 'utf8');
  const at = readme.indexOf('<!-- example: webhook-receiver -->');
  const block = /```ts\n([\s\S]*?)```/.exec(readme.slice(at));
  if (at < 0 || !block) throw new Error('README.md has no webhook-receiver example');
  return block[1];
}

describe('README webhooks guide', () => {
  it('its receiver type-checks, verifies real deliveries and keeps the newest of each resource', async () => {
    // Inside the repository, so `standardwebhooks` and `memorybook-client` resolve as they would for an integrator.
    const dir = path.resolve('node_modules/.cache/memorybook-readme');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'receiver.ts');
    writeFileSync(file, readmeReceiver());
    await run(process.execPath, [
      path.resolve('node_modules/typescript/bin/tsc'),
      '--noEmit', '--strict', '--skipLibCheck', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--types', 'node', file,
    ]).catch((err) => {
      throw new Error(`the README's receiver does not type-check:\n${err.stdout}${err.stderr}`);
    });

    const t = await webhookApp();
    const port = await freePort();
    const { owner, slug, endpoint } = await ownerWithEndpoint(t, `http://127.0.0.1:${port}/`, { event_types: ['submission.created', 'submission.approved', 'submission.pinned'] });
    const child = spawn(process.execPath, ['--import', 'tsx', file], { env: { ...process.env, WEBHOOK_SECRET: endpoint.secret, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
    onTestFinished(() => {
      child.kill('SIGKILL');
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const waitFor = async (text: string) => {
      for (let i = 0; i < 300 && !output.includes(text); i++) await new Promise((r) => setTimeout(r, 100));
      expect(output).toContain(text);
    };
    await waitFor('listening');

    const made = await t.post(`/api/v1/books/${slug}/submissions/`, { text_content: 'A memory' }, { token: owner.token });
    await t.post(`/api/v1/books/${slug}/submissions/${made.body.id}/approve/`, undefined, { token: owner.token });
    await t.post(`/api/v1/books/${slug}/submissions/${made.body.id}/pin/`, undefined, { token: owner.token });
    await t.services.webhookDispatcher.runDue();
    const key = `submission:${made.body.id}`;
    await waitFor(`applied submission.pinned #3 to ${key}`);
    expect(output).toContain(`applied submission.created #1 to ${key}`);
    expect(output).toContain(`applied submission.approved #2 to ${key}`);

    // The first event again (a redelivery): older than what the receiver has, skipped.
    const log = await t.get(`/api/v1/webhook_endpoints/${endpoint.id}/deliveries/`, { token: owner.token });
    expect(log.body.items.every((a: any) => a.status_code === 204)).toBe(true);
    const first = log.body.items.find((a: any) => a.event_type === 'submission.created');
    expect((await t.post(`/api/v1/webhook_endpoints/${endpoint.id}/deliveries/${first.delivery_id}/retry/`, undefined, { token: owner.token })).status).toBe(202);
    await t.services.webhookDispatcher.runDue();
    await waitFor(`skipped submission.created #1 (older than what ${key} has)`);
  });
});
