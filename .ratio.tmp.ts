import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { renderPdfBook, type PageKind } from './src/exports/pdf/pdf-book.js';
import { makePhotos, testBookMemories } from './test/helpers/test-book.js';
const dir = '/tmp/i37-journal-ratio';
await makePhotos(dir);
for (const theme of process.argv.slice(2)) {
  const memories = testBookMemories();
  const kinds: PageKind[] = [];
  const pics = new Set<number>();
  async function* it() { yield* memories; }
  await renderPdfBook({ title: 'Bà nội 90 — 奶奶 — جدتي', subtitle: 'Cảm ơn bà ❤️', theme, bleedMm: 0, gutterMm: 0, memoryCount: memories.length, memories: it(), openPicture: async (k) => ({ path: path.join(dir, `${k}.jpg`), release: async () => {} }), output: createWriteStream(path.join(dir, `${theme}.pdf`)), now: new Date('2026-06-01T00:00:00Z'), dates: { first: memories[0].date, last: memories.at(-1)!.date }, trace: { page: (n, k) => (kinds[n - 1] = k), picture: (n) => pics.add(n), breather: (n) => pics.add(n) } });
  const body = kinds.map((k, i) => ({ k, n: i + 1 })).filter((x) => ['memories', 'breather', 'plate', 'quote'].includes(x.k));
  const pictured = body.filter((x) => pics.has(x.n) || x.k === 'plate' || x.k === 'breather').length;
  const quotes = body.filter((x) => x.k === 'quote').length;
  console.log(theme, 'pages', kinds.length, 'body pages', body.length, 'with photos', pictured, `${Math.round((100 * pictured) / body.length)}%`, 'quote pages', quotes, 'word-only', body.length - pictured - quotes);
}
