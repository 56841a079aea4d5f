import { randomBase62 } from '../../lib/secrets.js';

const MAX_SLUG = 60;

/** "Grandma's 90th Birthday!" → "grandmas-90th-birthday". */
export function slugify(title: string): string {
  const s = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/['’]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_SLUG)
    .replace(/-+$/g, '');
  return s || 'book';
}

/** The base slug, or the base with a short random suffix when taken. */
export function slugCandidates(title: string, tries = 6): string[] {
  const base = slugify(title);
  const out = [base];
  for (let i = 1; i < tries; i++) out.push(`${base.slice(0, MAX_SLUG - 7)}-${randomBase62(6).toLowerCase()}`);
  return out;
}

export const SLUG_RE = /^[a-z0-9](?:[a-z0-9-]{0,78}[a-z0-9])?$/;
