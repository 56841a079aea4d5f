import type { TestApp, TestResponse } from '../build-test-app.js';
import type { Case, Expectation } from './cases.js';

/** Past this a request counts as hung; inject cannot be cancelled, so the case fails instead. */
export const REQUEST_TIMEOUT_MS = 10_000;

const ENVELOPE_KEYS = ['code', 'details', 'message', 'request_id'];
const clip = (s: string, n = 160) => (s.length > n ? `${s.slice(0, n)}…(${s.length} chars)` : s);

/** The documented error shapes: the envelope, or 422 {detail: [{loc, msg, type}]}. */
export function shapeProblems(res: TestResponse): string[] {
  if (res.status < 300) return [];
  const ct = String(res.headers['content-type'] ?? '');
  if (!ct.startsWith('application/json')) return [`content-type ${ct || '(none)'}, not application/json`];
  const b = res.body;
  if (!b || typeof b !== 'object' || Array.isArray(b)) return ['body is not a JSON object'];
  if (res.status === 422 && 'detail' in b) {
    if (Object.keys(b).length !== 1) return [`{detail} body has other keys: ${Object.keys(b).join(', ')}`];
    if (!Array.isArray(b.detail) || b.detail.length === 0) return ['detail is not a non-empty array'];
    const bad = b.detail.find(
      (d: any) => !d || !Array.isArray(d.loc) || d.loc.length === 0 || typeof d.msg !== 'string' || typeof d.type !== 'string' || Object.keys(d).length !== 3,
    );
    return bad ? [`detail entry is not {loc, msg, type}: ${clip(JSON.stringify(bad))}`] : [];
  }
  const keys = Object.keys(b).sort();
  if (keys.join() !== ENVELOPE_KEYS.join()) return [`envelope keys are ${keys.join(', ')}`];
  const out: string[] = [];
  if (typeof b.code !== 'string' || typeof b.message !== 'string') out.push('code/message not strings');
  if (b.details !== null && (typeof b.details !== 'object' || Array.isArray(b.details))) out.push('details is neither an object nor null');
  if (b.request_id !== res.headers['x-request-id']) out.push(`request_id ${b.request_id} ≠ X-Request-Id ${res.headers['x-request-id']}`);
  return out;
}

function mismatch(res: TestResponse, e: Expectation): string | null {
  if (res.status !== e.status) return `status ${res.status}, expected ${e.status}`;
  const b = res.body ?? {};
  const codes = e.code === undefined ? null : [e.code].flat();
  if (codes && !codes.includes(b.code)) return `code ${b.code}, expected ${codes.join(' or ')}`;
  if (e.detailLoc) {
    const want = JSON.stringify(e.detailLoc).slice(0, -1);
    const locs: string[] = Array.isArray(b.detail) ? b.detail.map((d: any) => JSON.stringify(d.loc)) : [];
    if (!locs.some((l) => l.startsWith(want))) return `no detail at ${JSON.stringify(e.detailLoc)} (got ${clip(locs.join(' ') || JSON.stringify(b))})`;
  }
  if (e.wwwAuthenticate && !/^Bearer\b/.test(String(res.headers['www-authenticate'] ?? ''))) return `WWW-Authenticate is ${res.headers['www-authenticate']}`;
  if (e.allow) {
    const allow = String(res.headers.allow ?? '').split(/,\s*/);
    const missing = e.allow.filter((m) => !allow.includes(m));
    if (missing.length) return `Allow "${res.headers.allow}" lacks ${missing.join(', ')}`;
  }
  if (e.location !== undefined && res.headers.location !== e.location) return `Location ${res.headers.location}, expected ${e.location}`;
  if (e.queryParam) {
    if (b.details?.param !== e.queryParam.param) return `details.param ${b.details?.param}, expected ${e.queryParam.param}`;
    if (e.queryParam.value !== undefined && String(b.details?.value) !== e.queryParam.value) return `details.value ${clip(String(b.details?.value), 60)}, expected ${clip(e.queryParam.value, 60)}`;
  }
  return null;
}

function describeRequest(c: Case): string {
  const o = c.opts;
  const headers = { ...(o.headers ?? {}) };
  if (o.idempotencyKey !== undefined) headers['idempotency-key'] = o.idempotencyKey === false ? '(none)' : o.idempotencyKey;
  const cred = o.token ? ' [bearer]' : o.session ? ' [session]' : '';
  const payload = o.payload !== undefined ? String(o.payload) : o.body !== undefined ? JSON.stringify(o.body) : '';
  const h = Object.entries(headers).map(([k, v]) => `${k}: ${clip(String(v), 60)}`).join('; ');
  return `${c.method} ${clip(c.url, 120)}${cred}${h ? ` {${h}}` : ''}${payload ? ` body ${clip(payload, 100)}` : ''}`;
}

/** Sends one case; returns what is wrong with the answer, or null. */
export async function runCase(t: TestApp, c: Case): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)), REQUEST_TIMEOUT_MS);
  });
  let res: TestResponse;
  try {
    res = await Promise.race([t.request(c.method, c.url, c.opts), timeout]);
  } catch (err) {
    return `${c.name}\n    ${describeRequest(c)}\n    → ${clip((err as Error).message.replace(/\n/g, ' | '), 600)}`;
  } finally {
    clearTimeout(timer);
  }
  const problems = shapeProblems(res);
  if (res.status >= 500) problems.unshift(`server error ${res.status}`);
  const misses = c.expect.map((e) => mismatch(res, e));
  if (!misses.includes(null)) problems.push(misses.join(' / '));
  if (!problems.length) return null;
  return `${c.name}\n    ${describeRequest(c)}\n    → ${res.status} ${clip(res.text, 300)}\n    ${problems.join('; ')}`;
}
