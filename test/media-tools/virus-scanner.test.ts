import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClamavScanner, parseReply, VirusScanError } from '../../src/media-tools/virus-scanner.js';
import { clamdSkipReason, EICAR_SIGNATURE, startClamd, type RunningClamd } from '../helpers/clamd.js';
import { bigFile, EICAR, ensureFixtures, fixturePaths } from '../helpers/media-fixtures.js';

let dir: string;
beforeAll(async () => {
  await ensureFixtures(['jpeg', 'eicarJpeg', 'pdf', 'mp4']);
  dir = await mkdtemp(path.join(os.tmpdir(), 'memorybook-scan-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('parseReply', () => {
  it('reads clamd verdicts and throws on anything else', () => {
    expect(parseReply('stream: OK')).toEqual({ result: 'clean', signature: null });
    expect(parseReply('stream: Win.Test.EICAR_HDB-1 FOUND')).toEqual({ result: 'infected', signature: 'Win.Test.EICAR_HDB-1' });
    expect(() => parseReply('INSTREAM size limit exceeded. ERROR')).toThrow(VirusScanError);
    expect(() => parseReply('stream: Can\'t allocate memory ERROR')).toThrow(VirusScanError);
    expect(() => parseReply('')).toThrow(VirusScanError);
    expect(() => parseReply('UNKNOWN COMMAND')).toThrow(VirusScanError);
  });
});

const skip = clamdSkipReason();
if (skip) console.warn(skip);

describe.skipIf(skip !== null)('against a real clamd', () => {
  let clamd: RunningClamd;
  beforeAll(async () => {
    clamd = await startClamd();
  }, 90_000);
  afterAll(() => clamd?.stop());

  it('answers PING', async () => {
    await createClamavScanner(clamd.options).ping();
  });

  it('finds a clean JPEG, PDF and MP4 clean', async () => {
    const scanner = createClamavScanner(clamd.options);
    for (const f of [fixturePaths.jpeg, fixturePaths.pdf, fixturePaths.mp4]) {
      expect(await scanner.scan(f)).toEqual({ result: 'clean', signature: null });
    }
  });

  it('finds the EICAR string inside a JPEG, naming the signature', async () => {
    const verdict = await createClamavScanner(clamd.options).scan(fixturePaths.eicarJpeg);
    expect(verdict.result).toBe('infected');
    expect(verdict.signature).toContain(EICAR_SIGNATURE);
  });

  it('finds it across a chunk boundary of a multi-chunk stream', async () => {
    // 64 KiB chunks: put the string where one chunk ends and the next begins.
    const file = path.join(dir, 'straddle.bin');
    const body = Buffer.alloc(3 * 65536, 0x41);
    Buffer.from(EICAR, 'latin1').copy(body, 65536 - 30);
    await writeFile(file, body);
    expect((await createClamavScanner(clamd.options).scan(file)).result).toBe('infected');
  });

  it('scans several files at once', async () => {
    const scanner = createClamavScanner(clamd.options);
    const results = await Promise.all([fixturePaths.jpeg, fixturePaths.eicarJpeg, fixturePaths.pdf, fixturePaths.eicarJpeg].map((f) => scanner.scan(f)));
    expect(results.map((r) => r.result)).toEqual(['clean', 'infected', 'clean', 'infected']);
  });

  it('throws, never "clean", when the file is over clamd\'s StreamMaxLength', async () => {
    const huge = await bigFile('mp4', 65 * 1024 * 1024); // the test clamd allows 64 MiB
    try {
      await expect(createClamavScanner(clamd.options).scan(huge)).rejects.toThrow(/size limit/);
    } finally {
      await rm(path.dirname(huge), { recursive: true, force: true });
    }
  });

  it('throws for a file that does not exist', async () => {
    await expect(createClamavScanner(clamd.options).scan(path.join(dir, 'missing.jpg'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('throws when clamd is down', async () => {
    const other = await startClamd();
    await other.stop();
    const scanner = createClamavScanner(other.options);
    await expect(scanner.scan(fixturePaths.jpeg)).rejects.toThrow(VirusScanError);
    await expect(scanner.scan(fixturePaths.jpeg)).rejects.toThrow(/connection to clamd at 127\.0\.0\.1:\d+ failed/);
  });
});

describe('misbehaving clamd', () => {
  let server: Server;
  let port: number;
  let behaviour: (socket: Socket) => void = () => {};
  const sockets = new Set<Socket>();
  beforeAll(async () => {
    server = createServer((s) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
      behaviour(s);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => server.close(r));
  });

  it('times out when clamd never answers', async () => {
    behaviour = (s) => s.on('data', () => {}); // reads everything, says nothing
    const started = Date.now();
    await expect(createClamavScanner({ host: '127.0.0.1', port, timeoutMs: 300 }).scan(fixturePaths.jpeg)).rejects.toThrow(/no verdict within 300 ms/);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('throws when clamd hangs up without a verdict', async () => {
    behaviour = (s) => s.once('data', () => s.end());
    await expect(createClamavScanner({ host: '127.0.0.1', port, timeoutMs: 5_000 }).scan(fixturePaths.jpeg)).rejects.toThrow(/without a reply/);
  });

  it('throws on an error reply', async () => {
    behaviour = (s) => s.once('data', () => s.end('stream: lstat() failed: No such file or directory. ERROR\0'));
    await expect(createClamavScanner({ host: '127.0.0.1', port, timeoutMs: 5_000 }).scan(fixturePaths.jpeg)).rejects.toThrow(/could not scan.*ERROR/);
  });

  it('sends INSTREAM framing: command, length-prefixed chunks, zero terminator', async () => {
    let received = Buffer.alloc(0);
    behaviour = (s) =>
      s.on('data', (d: Buffer) => {
        received = Buffer.concat([received, d]);
        if (received.subarray(-4).equals(Buffer.alloc(4))) s.end('stream: OK\0');
      });
    const file = path.join(dir, 'framing.bin');
    const body = Buffer.alloc(100_000, 7);
    await writeFile(file, body);
    expect(await createClamavScanner({ host: '127.0.0.1', port, timeoutMs: 5_000 }).scan(file)).toEqual({ result: 'clean', signature: null });
    expect(received.subarray(0, 10).toString('latin1')).toBe('zINSTREAM\0');
    let at = 10;
    const chunks: Buffer[] = [];
    for (;;) {
      const n = received.readUInt32BE(at);
      at += 4;
      if (n === 0) break;
      chunks.push(received.subarray(at, at + n));
      at += n;
    }
    expect(at).toBe(received.length);
    expect(Buffer.concat(chunks).equals(body)).toBe(true);
  });

  it('stops on abort', async () => {
    behaviour = (s) => s.on('data', () => {});
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await expect(createClamavScanner({ host: '127.0.0.1', port, timeoutMs: 10_000 }).scan(fixturePaths.jpeg, controller.signal)).rejects.toMatchObject({ name: 'AbortError' });
  });
});
