import { jsonEtag, jsonObject, jsonRaw, jsonTimestamp, jsonValue } from '../../db/sql-json.js';
import { etagOf } from '../../lib/etag.js';
import type { BookRow, Role } from './book-types.js';

export function toBook(b: BookRow, role: Role | null) {
  return {
    slug: b.slug,
    title: b.title,
    subtitle: b.subtitle,
    theme: b.theme,
    settings: b.settings,
    use_case_slug: b.use_case_slug,
    is_public: b.is_public,
    status: b.status,
    plan: b.plan_slug,
    role,
    created_at: b.created_at,
    updated_at: b.updated_at,
    archived_at: b.archived_at,
    etag: etagOf(b.updated_at),
  };
}

/**
 * toBook, built by the database: the SQL of one Book's JSON text, from the
 * books row `b` and the role expression given. Field for field what toBook
 * makes, in the Book schema's order (test/http/books/books.json.test.ts holds
 * the two to the same output).
 */
export function bookJsonSql(b: string, role: string): string {
  return jsonObject([
    ['slug', jsonValue(`${b}.slug`)],
    ['title', jsonValue(`${b}.title`)],
    ['subtitle', jsonValue(`${b}.subtitle`)],
    ['theme', jsonValue(`${b}.theme`)],
    ['settings', jsonRaw(`${b}.settings`)],
    ['use_case_slug', jsonValue(`${b}.use_case_slug`)],
    ['is_public', jsonValue(`${b}.is_public`)],
    ['status', jsonValue(`${b}.status`)],
    ['plan', jsonValue(`${b}.plan_slug`)],
    ['role', jsonValue(role)],
    ['created_at', jsonTimestamp(`${b}.created_at`)],
    ['updated_at', jsonTimestamp(`${b}.updated_at`)],
    ['archived_at', jsonTimestamp(`${b}.archived_at`)],
    ['etag', jsonEtag(`${b}.updated_at`)],
  ]);
}
