import { etagOf } from '../../lib/etag.js';
import type { Role } from './book-access.js';
import type { BookRow } from './book-types.js';

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
