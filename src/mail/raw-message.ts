import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { streamed } from '../lib/stream-garbage.js';

/** A header block larger than this stops being kept (the message still flows); real ones are a few kilobytes. */
const MAX_HEADER_BYTES = 256 * 1024;

export class MessageTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`The message is larger than ${maxBytes} bytes`);
    this.name = 'MessageTooLargeError';
  }
}

export interface HeaderField {
  /** Lower-case name. */
  key: string;
  /** Unfolded value, trimmed. */
  value: string;
}

export interface RawMessageInfo {
  sizeBytes: number;
  headers: HeaderField[];
  /** SHA-256 of everything after the header block: what identifies a message without a Message-ID. */
  bodySha256: string;
}

/** Every field of an RFC 5322 header block, unfolded, in order. */
export function parseHeaderBlock(block: string): HeaderField[] {
  const fields: HeaderField[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (/^[ \t]/.test(line) && fields.length) {
      fields[fields.length - 1].value += ' ' + line.trim();
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    fields.push({ key: line.slice(0, colon).trim().toLowerCase(), value: line.slice(colon + 1).trim() });
  }
  return fields;
}

/**
 * A pass-through that meters a raw message as it streams (to the spool):
 * its size (an error past `maxBytes`, so nothing past the ceiling is ever
 * stored), its header block, and the hash of its body. Holds only the
 * header block, never the body.
 */
export class MessageMeter extends Transform {
  private size = 0;
  /** The header bytes so far, while the blank line that ends them has not come. */
  private head: Buffer | null = Buffer.alloc(0);
  private headerBlock = '';
  private readonly bodyHash = createHash('sha256');

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.size += chunk.length;
    streamed(chunk.length); // frees the socket's dead buffers as the message goes (see lib/stream-garbage.ts)
    if (this.size > this.maxBytes) return done(new MessageTooLargeError(this.maxBytes));
    if (this.head === null) this.bodyHash.update(chunk);
    else this.scanHeaders(chunk);
    done(null, chunk);
  }

  private scanHeaders(chunk: Buffer) {
    const from = Math.max(0, this.head!.length - 3); // the blank line may straddle two chunks
    const joined = Buffer.concat([this.head!, chunk]);
    const re = /\r?\n\r?\n/g;
    re.lastIndex = from;
    const m = re.exec(joined.toString('latin1'));
    if (m) {
      this.headerBlock = joined.subarray(0, m.index).toString('utf8');
      this.bodyHash.update(joined.subarray(m.index + m[0].length));
      this.head = null;
    } else if (joined.length > MAX_HEADER_BYTES) {
      // Not a header block anyone writes: keep its start, hash the rest as body.
      this.headerBlock = joined.subarray(0, MAX_HEADER_BYTES).toString('utf8');
      this.bodyHash.update(joined.subarray(MAX_HEADER_BYTES));
      this.head = null;
    } else {
      this.head = joined;
    }
  }

  override _flush(done: TransformCallback): void {
    // A message that is all header (no blank line): the whole of it is the block, the body empty.
    if (this.head !== null) this.headerBlock = this.head.toString('utf8');
    this.head = null;
    done();
  }

  info(): RawMessageInfo {
    return { sizeBytes: this.size, headers: parseHeaderBlock(this.headerBlock), bodySha256: this.bodyHash.copy().digest('hex') };
  }
}

/** A big stream read back (a spooled message), its dead buffers freed as it goes (see lib/stream-garbage.ts). */
export function collectedAsItGoes(source: Readable): Readable {
  const through = new Transform({
    transform(chunk: Buffer, _enc, done) {
      streamed(chunk.length);
      done(null, chunk);
    },
  });
  source.on('error', (err) => through.destroy(err));
  return source.pipe(through);
}

/** A pass-through that keeps the HMAC-SHA256 of everything that went through it. */
export class HmacMeter extends Transform {
  private readonly hmac;
  constructor(secret: string) {
    super();
    this.hmac = createHmac('sha256', secret);
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.hmac.update(chunk);
    done(null, chunk);
  }
  /** Whether `header` (`sha256=<hex>`) is this body's signature, compared in constant time. */
  matches(header: string): boolean {
    const m = /^sha256=([0-9a-f]{64})$/i.exec(header.trim());
    if (!m) return false;
    const given = Buffer.from(m[1].toLowerCase(), 'hex');
    const expected = this.hmac.digest();
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}

/** The first value of a header field, if any. */
export const headerValue = (headers: HeaderField[], key: string) => headers.find((h) => h.key === key)?.value;

/** The addr-spec inside a Message-ID (`<id@host>`), or null. */
export function messageIdOf(headers: HeaderField[]): string | null {
  const raw = headerValue(headers, 'message-id');
  if (!raw) return null;
  const m = /<([^<>\s]{1,900})>/.exec(raw);
  const id = (m ? m[1] : raw.trim()).slice(0, 900);
  return id || null;
}

/** Every address (lower-case) named in these header fields, for finding a message's recipients. */
export function addressesIn(headers: HeaderField[], keys: string[]): string[] {
  const found: string[] = [];
  for (const h of headers) {
    if (!keys.includes(h.key)) continue;
    for (const m of h.value.matchAll(/[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9.-]+/g)) found.push(m[0].toLowerCase());
  }
  return [...new Set(found)];
}
