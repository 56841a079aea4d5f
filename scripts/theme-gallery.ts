/**
 * Writes docs/themes/<theme>.png: for each export theme, the cover and the
 * first two pages of memories of a sample book, side by side, as the PDF export
 * renders them (the same code path), so the themes can be compared at a
 * glance; and docs/themes/<theme>-cover.png, the printed book's cover wrap
 * (back, spine, front) with and without a cover photo. Needs Debian's
 * poppler-utils (pdftoppm).
 *
 *   npx tsx scripts/theme-gallery.ts [theme…]
 */
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { renderPdfBook, type PdfMemory } from '../src/exports/pdf/pdf-book.js';
import { renderCoverWrap } from '../src/exports/pdf/cover-wrap.js';
import { THEMES } from '../src/services/books/book-types.js';
import { THEME_STYLES } from '../src/media-tools/themes.js';
import { PDF_LOOKS } from '../src/exports/pdf/pdf-themes.js';
import { writeFile } from 'node:fs/promises';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'docs/themes');
const DPI = 44;

/** A made-up landscape photo: sky, sun, hills (no photo files ship with the repository). */
async function photo(file: string, width: number, height: number, hue: number) {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="hsl(${hue},55%,62%)"/><stop offset="1" stop-color="hsl(${hue + 30},60%,84%)"/></linearGradient></defs>
    <rect width="100%" height="100%" fill="url(#sky)"/>
    <circle cx="${width * 0.72}" cy="${height * 0.3}" r="${height * 0.12}" fill="hsl(45,95%,82%)"/>
    <path d="M0 ${height * 0.72} Q ${width * 0.25} ${height * 0.5} ${width * 0.55} ${height * 0.68} T ${width} ${height * 0.62} V ${height} H 0 Z" fill="hsl(${hue + 140},35%,38%)"/>
    <path d="M0 ${height * 0.85} Q ${width * 0.4} ${height * 0.7} ${width} ${height * 0.86} V ${height} H 0 Z" fill="hsl(${hue + 150},40%,26%)"/></svg>`;
  await sharp(Buffer.from(svg)).jpeg({ quality: 88 }).toFile(file);
}

const MEMORIES: Omit<PdfMemory, 'id' | 'date'>[] = [
  {
    text: 'The summer the pier broke, you taught every one of us to swim in the lake, counting to ten while we held our breath. Happy ninetieth! 🎉',
    signature: 'Sam',
    pinned: true,
    pictures: [{ key: 'lake', kind: 'photo' }],
    recordings: [],
  },
  {
    text: 'Cardamom buns on Sunday mornings, and the corner piece always saved for me, even when my brothers begged for it.',
    signature: 'Ada Lovelace',
    pinned: false,
    pictures: [],
    recordings: [{ kind: 'audio', url: 'https://memorybook.example/play/example-token/', duration: 42 }],
  },
  {
    text: 'The night drive to the coast, singing every song on the radio, even the ones you did not know.',
    signature: 'The Nguyen family',
    pinned: false,
    pictures: [
      { key: 'coast', kind: 'photo' },
      { key: 'drive', kind: 'video' },
    ],
    recordings: [],
  },
];

/** docs/themes/README.md: each theme's picture with its typefaces and colours. */
function galleryIndex(): string {
  const lines = [
    '# Export themes',
    '',
    'The cover and the first two pages of memories of a sample book in each theme, as the PDF export renders them',
    '(210 × 210 mm, the `screen` intent), and below it the cover wrap of the printed book (the `shop` intent: back, spine',
    'and front with 3 mm bleed, for 120 pages at the default paper caliper), with the cover photo and without one.',
    'Made by `npx tsx scripts/theme-gallery.ts`; run it again after changing a theme.',
    'Typefaces are OFL fonts shipped in `@expo-google-fonts` packages and embedded in the PDF.',
    '',
  ];
  for (const theme of THEMES) {
    const s = THEME_STYLES[theme];
    lines.push(`## ${theme}`, '', `![${theme}](${theme}.png)`, '', `![${theme} cover wrap](${theme}-cover.png)`, '');
    lines.push(`Title ${s.title.family}, words ${s.quote.family}${s.quote.style === 'italic' ? ' italic' : ''}, names ${s.body.family}; background ${s.palette.background}, text ${s.palette.text}, accent ${s.palette.accent}.`, '');
    const l = PDF_LOOKS[theme];
    const m = l.margins;
    lines.push(
      `Grid: margins ${m.top}/${m.bottom} mm top/bottom, ${m.inner}/${m.outer} mm inner/outer; words ${l.quoteSize} pt ${l.align === 'center' ? 'centred' : 'flush left'}, long memories ${l.longSize} pt justified; photos up to ${Math.round(l.photoShare * 100)}% of the page, ${l.mount} mount; ${l.cover} cover${l.datedEntries ? '; entries headed by their date' : ''}${l.captionCaps ? '; dates in capitals' : ''}.`,
      '',
    );
  }
  return lines.join('\n');
}

async function main() {
  const only = process.argv.slice(2);
  const themes = only.length ? THEMES.filter((t) => only.includes(t)) : THEMES;
  const dir = await mkdtemp(path.join(tmpdir(), 'memorybook-gallery-'));
  try {
    const files: Record<string, string> = { lake: path.join(dir, 'lake.jpg'), coast: path.join(dir, 'coast.jpg'), drive: path.join(dir, 'drive.jpg') };
    await photo(files.lake, 3000, 2000, 205);
    await photo(files.coast, 1600, 2000, 15);
    await photo(files.drive, 1920, 1080, 260);
    await mkdir(OUT, { recursive: true });
    for (const theme of themes) {
      const pdf = path.join(dir, `${theme}.pdf`);
      async function* memories(): AsyncGenerator<PdfMemory> {
        let i = 0;
        for (const m of MEMORIES) yield { ...m, id: String(i), date: new Date(Date.UTC(2026, 9, 3 + 4 * i++)).toISOString() };
      }
      const book = await renderPdfBook({
        title: 'Grandma turns 90',
        subtitle: 'Ninety years of lakes, songs and cardamom buns',
        theme,
        bleedMm: 0,
        gutterMm: 0,
        memoryCount: 124,
        memories: memories(),
        openPicture: async (key) => ({ path: files[key], release: async () => {} }),
        output: createWriteStream(pdf),
        now: new Date(Date.UTC(2026, 10, 21)),
        coverPicture: 'lake',
      });
      // The cover wraps, with the photo and without, one above the other.
      const wraps: string[] = [];
      for (const withPhoto of [true, false]) {
        const wrap = path.join(dir, `${theme}-wrap-${withPhoto}.pdf`);
        await renderCoverWrap({
          title: 'Grandma turns 90',
          subtitle: 'Ninety years of lakes, songs and cardamom buns',
          theme,
          bleedMm: 3,
          pageCount: 120,
          caliperMm: 0.06,
          memoryCount: 124,
          photo: withPhoto ? { path: files.lake } : null,
          back: book.back,
          output: createWriteStream(wrap),
          now: new Date(Date.UTC(2026, 10, 21)),
        });
        await run('pdftoppm', ['-png', '-r', String(DPI * 0.75), '-singlefile', wrap, path.join(dir, `${theme}-wrap-${withPhoto}`)]);
        wraps.push(path.join(dir, `${theme}-wrap-${withPhoto}.png`));
      }
      const wrapSize = await sharp(wraps[0]).metadata();
      const wrapOut = path.join(OUT, `${theme}-cover.png`);
      await sharp({ create: { width: wrapSize.width! + 28, height: wrapSize.height! * 2 + 42, channels: 3, background: '#8a8a8a' } })
        .composite(wraps.map((input, i) => ({ input, left: 14, top: 14 + i * (wrapSize.height! + 14) })))
        .png({ palette: true, colours: 128, effort: 10 })
        .toFile(wrapOut);
      console.log(path.relative(ROOT, wrapOut));
      await run('pdftoppm', ['-png', '-r', String(DPI), '-f', '1', '-l', '4', pdf, path.join(dir, theme)]);
      const pages = [1, 3, 4].map((n) => path.join(dir, `${theme}-${n}.png`));
      const { width, height } = await sharp(pages[0]).metadata();
      const gap = 14;
      const out = path.join(OUT, `${theme}.png`);
      await sharp({ create: { width: width! * pages.length + gap * (pages.length + 1), height: height! + gap * 2, channels: 3, background: '#8a8a8a' } })
        .composite(pages.map((input, i) => ({ input, left: gap + i * (width! + gap), top: gap })))
        .png({ palette: true, colours: 128, effort: 10 })
        .toFile(out);
      console.log(path.relative(ROOT, out));
    }
    await writeFile(path.join(OUT, 'README.md'), galleryIndex());
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
