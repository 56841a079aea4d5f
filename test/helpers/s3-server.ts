import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
// @ts-expect-error s3rver ships no types
import S3rver from 's3rver';

export interface TestS3Server {
  /** Environment for loadConfig: STORAGE=s3 against this server. */
  env: Record<string, string>;
  endpoint: string;
  bucket: string;
  /** Where s3rver keeps the bucket's files. */
  directory: string;
  /** Stops answering: open connections are cut and new ones refused (the store is down). */
  stop(): Promise<void>;
  /** Answers again on the same port, with the same files. */
  start(): Promise<void>;
  close(): Promise<void>;
}

const ACCESS_KEY = 'S3RVER';
const SECRET_KEY = 'S3RVER';
const REGION = 'us-east-1';

interface KoaContext {
  method: string;
  url: string;
  headers: Record<string, string | undefined>;
  status: number;
  body: unknown;
  type: string;
  set(name: string, value: string): void;
}

/**
 * A real S3 API (s3rver) on a free loopback port with a fresh directory and
 * one bucket. s3rver checks a presigned URL's expiry but accepts any SigV4
 * signature, and lacks AbortMultipartUpload, ListMultipartUploads and
 * ListParts; a middleware in front adds exactly those, so the store's cleanup,
 * the resumable uploads' parts and tamper checks are tested against real requests:
 * - presigned (query-string SigV4) requests are verified per the SigV4 spec,
 *   written here independently of the SDK, and refused 403 on mismatch;
 * - `DELETE /<bucket>/<key>?uploadId=` removes the pending upload;
 * - `GET /<bucket>?uploads` lists the pending uploads;
 * - `GET /<bucket>/<key>?uploadId=` lists an upload's parts.
 */
export async function startS3Server(): Promise<TestS3Server> {
  const directory = mkdtempSync(path.join(tmpdir(), 'memorybook-s3rver-'));
  const bucket = 'memorybook-test';
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const uploadsDir = path.join(directory, bucket, '._S3rver_uploads');

  (server.middleware as unknown[]).unshift(async (ctx: KoaContext, next: () => Promise<void>) => {
    const [rawPath, rawQuery = ''] = splitOnce(ctx.url, '?');
    const query = new URLSearchParams(rawQuery);
    if (query.has('X-Amz-Algorithm') && !presignatureMatches(ctx.method, rawPath, rawQuery, ctx.headers.host ?? '')) {
      ctx.status = 403;
      ctx.type = 'application/xml';
      ctx.body = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match the signature you provided.</Message></Error>';
      return;
    }
    if (ctx.method === 'DELETE' && query.has('uploadId')) {
      const dir = path.join(uploadsDir, path.basename(query.get('uploadId')!));
      const exists = await stat(dir).then(() => true, () => false);
      await rm(dir, { recursive: true, force: true });
      ctx.status = exists ? 204 : 404;
      if (!exists) {
        ctx.type = 'application/xml';
        ctx.body = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchUpload</Code><Message>The specified upload does not exist.</Message></Error>';
      }
      return;
    }
    // ListParts (the resumable uploads' S3 store reads which parts it has): the part files s3rver keeps, with their MD5 ETags.
    if (ctx.method === 'GET' && query.has('uploadId') && !query.has('partNumber')) {
      const dir = path.join(uploadsDir, path.basename(query.get('uploadId')!));
      const names = await readdir(dir).catch(() => null);
      ctx.type = 'application/xml';
      if (!names) {
        ctx.status = 404;
        ctx.body = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchUpload</Code><Message>The specified upload does not exist.</Message></Error>';
        return;
      }
      const numbers = names.filter((n) => /^\d+$/.test(n)).map(Number).sort((a, b) => a - b);
      const parts = await Promise.all(
        numbers.map(async (n) => ({ n, size: (await stat(path.join(dir, String(n)))).size, md5: await readFile(path.join(dir, `${n}.md5`), 'utf8') })),
      );
      ctx.body =
        '<?xml version="1.0" encoding="UTF-8"?>\n<ListPartsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' +
        `<Bucket>${bucket}</Bucket><UploadId>${escapeXml(query.get('uploadId')!)}</UploadId><IsTruncated>false</IsTruncated>` +
        parts.map((p) => `<Part><PartNumber>${p.n}</PartNumber><ETag>"${p.md5}"</ETag><Size>${p.size}</Size></Part>`).join('') +
        '</ListPartsResult>';
      return;
    }
    if (ctx.method === 'GET' && (rawPath === `/${bucket}` || rawPath === `/${bucket}/`) && query.has('uploads')) {
      const ids = await readdir(uploadsDir).catch(() => [] as string[]);
      const uploads = await Promise.all(ids.map(async (id) => ({ id, key: await readFile(path.join(uploadsDir, id, 'key'), 'utf8').catch(() => '') })));
      ctx.type = 'application/xml';
      ctx.body =
        '<?xml version="1.0" encoding="UTF-8"?>\n<ListMultipartUploadsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' +
        `<Bucket>${bucket}</Bucket><IsTruncated>false</IsTruncated>` +
        uploads.map((u) => `<Upload><Key>${escapeXml(u.key)}</Key><UploadId>${u.id}</UploadId></Upload>`).join('') +
        '</ListMultipartUploadsResult>';
      return;
    }
    await next();
  });

  const { port } = (await server.run()) as { port: number };
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    env: {
      STORAGE: 's3',
      S3_ENDPOINT: endpoint,
      S3_BUCKET: bucket,
      S3_REGION: REGION,
      S3_ACCESS_KEY_ID: ACCESS_KEY,
      S3_SECRET_ACCESS_KEY: SECRET_KEY,
      S3_FORCE_PATH_STYLE: 'true',
    },
    endpoint,
    bucket,
    directory,
    async stop() {
      const http = server.httpServer as Server;
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
    async start() {
      const http = server.httpServer as Server;
      await new Promise<void>((resolve, reject) => {
        http.once('error', reject);
        http.listen(port, '127.0.0.1', () => {
          http.off('error', reject);
          resolve();
        });
      });
    },
    async close() {
      // Keep-alive sockets (the SDK's, fetch's) would hold close() open.
      const http = server.httpServer as Server;
      http.closeAllConnections();
      if (http.listening) await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** SigV4 query-string authentication (UNSIGNED-PAYLOAD), from the AWS documentation. */
function presignatureMatches(method: string, rawPath: string, rawQuery: string, host: string): boolean {
  const pairs = rawQuery
    .split('&')
    .filter(Boolean)
    .map((p) => splitOnce(p, '=').map((s) => decodeURIComponent((s ?? '').replace(/\+/g, '%20'))) as [string, string]);
  const get = (name: string) => pairs.find(([k]) => k === name)?.[1];
  const provided = get('X-Amz-Signature');
  const credential = get('X-Amz-Credential');
  const amzDate = get('X-Amz-Date');
  const signedHeaders = get('X-Amz-SignedHeaders');
  if (get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256' || !provided || !credential || !amzDate || !signedHeaders) return false;
  const [accessKey, date, region, service, terminator] = credential.split('/');
  if (accessKey !== ACCESS_KEY || terminator !== 'aws4_request' || !/^[0-9a-f]{64}$/.test(provided)) return false;

  const canonicalQuery = pairs
    .filter(([k]) => k !== 'X-Amz-Signature')
    .map(([k, v]) => [rfc3986(k), rfc3986(v)])
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const headers: Record<string, string> = { host };
  const names = signedHeaders.split(';');
  if (names.some((n) => !(n in headers))) return false;
  const canonicalRequest = [
    method === 'HEAD' ? 'HEAD' : method,
    rawPath,
    canonicalQuery,
    names.map((n) => `${n}:${headers[n].trim()}\n`).join(''),
    signedHeaders,
    get('X-Amz-Content-Sha256') ?? 'UNSIGNED-PAYLOAD',
  ].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, createHash('sha256').update(canonicalRequest).digest('hex')].join('\n');
  let key: Buffer = createHmac('sha256', `AWS4${SECRET_KEY}`).update(date).digest();
  for (const part of [region, service, 'aws4_request']) key = createHmac('sha256', key).update(part).digest();
  const expected = createHmac('sha256', key).update(stringToSign).digest();
  return timingSafeEqual(expected, Buffer.from(provided, 'hex'));
}

function rfc3986(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function splitOnce(s: string, sep: string): [string, string?] {
  const i = s.indexOf(sep);
  return i === -1 ? [s] : [s.slice(0, i), s.slice(i + 1)];
}

function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
