import { describe, expect, it } from 'vitest';
import type { ExportBook, ExportSubmission } from './export-input.js';
import { jsonExportChunks } from './json-export.js';

const book: ExportBook = {
  id: 'b',
  slug: 'grandma-turns-90',
  title: 'Grandma "turns" 90',
  subtitle: '',
  theme: 'storybook',
  use_case_slug: null,
  settings: {},
  is_public: false,
  status: 'active',
  created_at: '2026-11-21T10:00:00.000000Z',
  updated_at: '2026-11-21T10:00:00.000000Z',
  cover: null,
};
const memory = (id: string): ExportSubmission => ({
  id,
  text_content: 'Line one\nline "two" 🎉',
  contributor_name: null,
  contributor_email: 'a@example.test',
  contributor_user_id: null,
  contributor_first_name: null,
  contributor_last_name: null,
  is_private: false,
  is_pinned: false,
  pinned_at: null,
  source: 'web',
  created_at: '2026-11-21T10:00:00.000000Z',
  updated_at: '2026-11-21T10:00:00.000000Z',
  media: [],
});

async function render(n: number) {
  async function* submissions() {
    for (let i = 0; i < n; i++) yield memory(`s${i}`);
  }
  let out = '';
  for await (const chunk of jsonExportChunks({ book, exportedAt: '2026-11-22T00:00:00.000000Z', submissions: submissions() })) out += chunk;
  return out;
}

describe('the JSON export', () => {
  it.each([0, 1, 3])('is one valid document with %i memories, keys in the contract’s order', async (n) => {
    const doc = JSON.parse(await render(n));
    expect(Object.keys(doc)).toEqual(['format_version', 'exported_at', 'book', 'submissions']);
    expect(doc.book.title).toBe('Grandma "turns" 90');
    expect(doc.submissions.map((s: { id: string }) => s.id)).toEqual(Array.from({ length: n }, (_, i) => `s${i}`));
    if (n) expect(doc.submissions[0].text_content).toBe('Line one\nline "two" 🎉');
  });
});
