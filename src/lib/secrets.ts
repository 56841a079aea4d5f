import { createHash, createHmac, randomBytes, randomInt, scrypt, timingSafeEqual } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Algorithm, Version } from '@node-rs/argon2';

/** The argon2 binding, loaded on the first password: its native library takes tens of ms to load, and most processes (and starts) hash none. */
let argon2Binding: typeof import('@node-rs/argon2') | undefined;
const argon2 = () => (argon2Binding ??= createRequire(import.meta.url)('@node-rs/argon2') as typeof import('@node-rs/argon2'));

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniformly random base62 text (rejection-free via randomInt). */
export function randomBase62(length: number): string {
  let s = '';
  for (let i = 0; i < length; i++) s += BASE62[randomInt(62)];
  return s;
}

export function sha256(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

export function hmac(secret: string, value: string): Buffer {
  return createHmac('sha256', secret).update(value).digest();
}

/** Constant-time equality of two strings or buffers of any length. */
export function safeEqual(a: string | Buffer, b: string | Buffer): boolean {
  const x = typeof a === 'string' ? Buffer.from(a) : a;
  const y = typeof b === 'string' ? Buffer.from(b) : b;
  // Compare digests so unequal lengths take the same time as equal ones.
  return timingSafeEqual(createHash('sha256').update(x).digest(), createHash('sha256').update(y).digest()) && x.length === y.length;
}

export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

// The package's Algorithm and Version are const enums with no values at run time; the types check these numbers.
const ARGON2ID: Algorithm.Argon2id = 2;
const ARGON2_V19: Version.V0x13 = 1;

/**
 * New passwords: argon2id at OWASP's minimum (19 MiB, 2 passes, 1 lane),
 * stored as a PHC string ($argon2id$v=19$m=19456,t=2,p=1$salt$hash).
 */
const ARGON2 = { algorithm: ARGON2ID, version: ARGON2_V19, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

// The same password typed on two keyboards can arrive in two Unicode forms.
const normalisePassword = (password: string) => password.normalize('NFKC');

export function hashPassword(password: string): Promise<string> {
  return argon2().hash(normalisePassword(password), ARGON2);
}

/**
 * A hash no password matches, with our parameters, so a sign-in for an unknown
 * email or a password-less account costs one full argon2id run like any other.
 */
const DUMMY_HASH = `$argon2id$v=19$m=${ARGON2.memoryCost},t=${ARGON2.timeCost},p=${ARGON2.parallelism}$${phcBase64(randomBytes(16))}$${phcBase64(randomBytes(32))}`;

function phcBase64(bytes: Buffer): string {
  return bytes.toString('base64').replace(/=+$/, '');
}

export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const hash = stored ?? DUMMY_HASH;
  let ok: boolean;
  if (hash.startsWith('$argon2')) {
    // A stored string the library cannot decode matches no password.
    ok = await argon2().verify(hash, normalisePassword(password)).catch(() => false);
  } else if (hash.startsWith('scrypt$')) {
    ok = await verifyScryptPassword(password, hash);
  } else {
    ok = false;
  }
  return ok && stored != null;
}

/**
 * Whether a hash that just verified should be replaced by hashPassword's:
 * anything not argon2id, or argon2id with less memory or fewer passes than now.
 */
export function passwordNeedsRehash(stored: string): boolean {
  if (!stored.startsWith('$argon2id$')) return true;
  try {
    const o = argon2().parseOptions(stored);
    return o.version !== ARGON2.version || o.memoryCost < ARGON2.memoryCost || o.timeCost < ARGON2.timeCost || o.outputLen < 32;
  } catch {
    return true;
  }
}

/**
 * Hashes written before argon2id: scrypt$N$r$p$salt$key (base64url), N=2^15,
 * r=8, p=1. Still verified so those accounts can sign in; the sign-in then
 * replaces the hash.
 */
async function verifyScryptPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6) return false;
  const [, n, r, p, salt, key] = parts;
  const expected = Buffer.from(key, 'base64url');
  if (expected.length === 0) return false;
  const params = { N: Number(n), r: Number(r), p: Number(p), maxmem: 64 * 1024 * 1024 };
  const actual = await new Promise<Buffer | undefined>((resolve) => {
    try {
      scrypt(normalisePassword(password), Buffer.from(salt, 'base64url'), expected.length, params, (err, key) => resolve(err ? undefined : key));
    } catch {
      resolve(undefined); // parameters scrypt refuses (a damaged row)
    }
  });
  return actual !== undefined && timingSafeEqual(actual, expected);
}
