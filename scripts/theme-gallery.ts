/**
 * The theme gallery, docs/themes/, from a sample book rendered by the PDF
 * export's own code path: for each theme <theme>.png, the cover and the first
 * spread small, to compare the themes at a glance; <theme>-pages-<a>-<b>.jpg,
 * two facing spreads (verso left, recto right) at a size where the type can be
 * judged, the one the long letter fills and the one with most photograph;
 * <theme>-cover.png, the printed book's cover wrap (back, spine, front) with
 * and without a cover photo; and README.md, which captions them (written on a
 * run over every theme). Needs Debian's poppler-utils (pdftoppm, pdfimages).
 *
 *   npx tsx scripts/theme-gallery.ts [theme…]
 */
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
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
import { writePhotos } from '../test/helpers/real-photos.js';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'docs/themes');

/**
 * The sample's pictures, by key: their shapes (width / height), as a family's phones take them. Real photos of
 * people, cut from face-api's samples around their faces, as in the test book (test/helpers/real-photos.ts).
 */
const PICTURES: Record<string, number> = {
  lake: 3 / 2,
  coast: 4 / 5,
  drive: 16 / 9,
  grandma: 3 / 4,
  cake: 4 / 3,
  garden: 4 / 3,
  garden2: 3 / 4,
  forest: 3 / 2,
  cousins: 4 / 3,
  beach2: 3 / 2,
  hanoi: 4 / 5,
  hanoi2: 3 / 4,
  wedding: 4 / 5,
  rhodes: 3 / 2,
};

/** A memory of the sample book, and what the gallery's captions call its words and its pictures. */
interface Sample extends Omit<PdfMemory, 'id' | 'date'> {
  words: string;
  photos?: string;
}

const LETTER = [
  'Dear Mum, they asked each of us to write down one memory, and I have been trying for a week to choose, because there are far too many and none of them seems big enough on its own. So I will write down an ordinary one, which is perhaps the truest kind.',
  'It is the winter I was nine and we had no money at all, though I did not know it then. Dad was working nights at the bakery, and you were sewing curtains for half the street at the kitchen table, with the radio on low so it would not wake the little ones. I used to creep down the stairs and sit on the bottom step, and you always pretended not to see me for exactly as long as it took to finish a hem. Then you would put the kettle on, and make two cups of very milky tea, and tell me about the farm where you grew up: the geese that chased the postman, the well that froze so hard one January that your father had to melt snow for the cows, the dance in the village hall where a tall, shy boy from the next valley stepped on your feet all evening and walked you home anyway.',
  'I understood much later that those were the hardest years of your life. You never once let it show. The house was warm, there was always soup, and on Sundays there were cardamom buns, even if it meant you went without something I never found out about. When I asked you years afterwards how you managed, you laughed and said that you had simply decided not to be unhappy, as if that were the most natural thing in the world.',
  'I have tried to decide the same thing, many times, with my own children, and it is much harder than you made it look. Whenever I sit at my kitchen table late at night, with a cup of milky tea going cold beside me, I think of you with a needle in your hand and the radio on low, and I hope that somebody small is watching from the stairs.',
  'Happy ninetieth birthday. Thank you for every hem, every story and every bun.',
].join('\n\n');

const MEMORIES: Sample[] = [
  {
    words: 'Sam’s pinned memory',
    photos: 'landscape photo',
    text: 'The summer the pier broke, you taught every one of us to swim in the lake, counting to ten while we held our breath. Happy ninetieth! 🎉',
    signature: 'Sam',
    pinned: true,
    pictures: [{ key: 'lake', kind: 'photo' }],
    recordings: [],
  },
  {
    words: 'a one-line memory from Leo, aged 7',
    text: 'Love you to the moon and back, Granny!',
    signature: 'Leo, aged 7',
    pinned: false,
    pictures: [],
    recordings: [],
  },
  {
    words: 'Ada’s short memory with its voice recording (QR code)',
    text: 'Cardamom buns on Sunday mornings, and the corner piece always saved for me, even when my brothers begged for it.',
    signature: 'Ada Lovelace',
    pinned: false,
    pictures: [],
    recordings: [{ kind: 'audio', url: 'https://memorybook.example/play/example-token/', duration: 42 }],
  },
  {
    words: 'the Nguyen family’s memory',
    photos: 'portrait photo and video still',
    text: 'The night drive to the coast, singing every song on the radio, even the ones you did not know.',
    signature: 'The Nguyen family',
    pinned: false,
    pictures: [
      { key: 'coast', kind: 'photo' },
      { key: 'drive', kind: 'video' },
    ],
    recordings: [],
  },
  {
    words: 'Jonas’s short memory',
    text: 'Thursday chess at the kitchen table. You let me win until I was twelve, and never once after that.',
    signature: 'Jonas',
    pinned: false,
    pictures: [],
    recordings: [],
  },
  {
    words: 'Marta and Piotr’s reunion memory',
    photos: 'four photos',
    text: 'All forty-one of us in one garden for your eightieth, and somehow you remembered every great-grandchild’s name and what they liked for pudding.',
    signature: 'Marta and Piotr',
    pinned: false,
    pictures: [
      { key: 'garden', kind: 'photo' },
      { key: 'cousins', kind: 'photo' },
      { key: 'garden2', kind: 'photo' },
      { key: 'cake', kind: 'photo' },
    ],
    recordings: [],
  },
  {
    words: 'Elin’s long letter, hyphenated (justified or ragged as the theme sets it)',
    text: LETTER,
    signature: 'Your loving daughter, Elin',
    pinned: false,
    pictures: [],
    recordings: [],
  },
  {
    words: 'Uncle Bram’s short memory',
    text: 'You taught me that a garden is mostly patience and a little bit of luck with the weather.',
    signature: 'Uncle Bram',
    pinned: false,
    pictures: [],
    recordings: [],
  },
  {
    words: 'a memory in Vietnamese',
    photos: 'two portrait photos',
    text: 'Bà ơi, con vẫn nhớ mùa hè ở Hà Nội, khi bà dắt con đi ăn kem Tràng Tiền và kể chuyện ngày xưa. Chúc bà sống lâu trăm tuổi, luôn mạnh khỏe và vui vẻ bên con cháu.',
    signature: 'Nguyễn Thị Lan',
    pinned: false,
    pictures: [
      { key: 'hanoi', kind: 'photo' },
      { key: 'hanoi2', kind: 'photo' },
    ],
    recordings: [],
  },
  {
    words: 'Grandpa Erik’s wedding memory',
    photos: 'three photos (portrait and landscape)',
    text: 'Our wedding day in 1966: it rained from breakfast to midnight and you said it was the luckiest weather there could be. You were right.',
    signature: 'Grandpa Erik',
    pinned: false,
    pictures: [
      { key: 'wedding', kind: 'photo' },
      { key: 'forest', kind: 'photo' },
      { key: 'beach2', kind: 'photo' },
    ],
    recordings: [],
  },
  {
    words: 'a memory in Greek',
    photos: 'landscape photo',
    text: 'Γιαγιά, θυμάμαι το καλοκαίρι στη Ρόδο, όταν μου έμαθες να φτιάχνω κουλουράκια και γελούσαμε μέχρι το βράδυ. Χρόνια πολλά!',
    signature: 'Ελένη',
    pinned: false,
    pictures: [{ key: 'rhodes', kind: 'photo' }],
    recordings: [],
  },
  {
    words: 'the choir’s short memory with its video message (QR code)',
    text: 'We recorded the whole choir singing your song from the church steps. Press play, turn it up, and sing along.',
    signature: 'St Mary’s choir',
    pinned: false,
    pictures: [],
    recordings: [{ kind: 'video', url: 'https://memorybook.example/play/example-token-2/', duration: 95 }],
  },
];

/** A facing pair of the book as it was chosen for the gallery: its pages, its file and what it shows. */
interface Spread {
  pages: [number, number];
  file: string;
  caption: string;
}

/** docs/themes/README.md: each theme's overview, spreads and cover wrap, with its typefaces, colours and grid. */
function galleryIndex(spreads: Map<string, Spread[]>): string {
  const lines = [
    '# Export themes',
    '',
    `A sample book of ${MEMORIES.length} memories in each theme, as the PDF export renders it (the same code path; 210 × 210 mm pages, the`,
    '`screen` intent: no bleed, no added gutter, which is about how a bound spread looks once the binding has taken its',
    'share of the inner margins). First the cover and pages 2–3 small, to compare the themes at a glance; then two facing',
    `spreads at ${SPREAD_DPI} dpi, so the type can be judged at its printed size (view them at 100%): a verso on the left, the`,
    'recto on its right, as the book opens (page 1 is the cover, so pages 2–3, 4–5… face each other). Below them the cover wrap',
    'of the printed book (the `shop` intent: back, spine and front with 3 mm bleed, for 120 pages at the default paper',
    'caliper), with the cover photo and without one.',
    '',
    'The sample mixes a one-liner, short memories that share a page, a long letter (hyphenated, justified or ragged by the theme), one to four',
    'photos a memory in landscape and portrait, a voice recording and a video message (printed as QR codes), and memories in',
    'Vietnamese and Greek. The photos are real phone photos of people (face-api’s samples, read from the package), cut to each shape around their faces.',
    'Made by `npx tsx scripts/theme-gallery.ts [theme…]`; run it again after changing a theme or the composer.',
    'Typefaces are OFL fonts shipped in `@expo-google-fonts` packages and embedded in the PDF.',
    '',
  ];
  for (const theme of THEMES) {
    const s = THEME_STYLES[theme];
    lines.push(`## ${theme}`, '', `![${theme}: the cover and pages 2–3](${theme}.png)`, '');
    for (const spread of spreads.get(theme) ?? []) lines.push(`![${theme}: pages ${spread.pages.join('–')}](${spread.file})`, '', spread.caption, '');
    lines.push(`![${theme} cover wrap](${theme}-cover.png)`, '');
    lines.push(`Title ${s.title.family}, words ${s.quote.family}${s.quote.style === 'italic' ? ' italic' : ''}, names ${s.body.family}; background ${s.palette.background}, text ${s.palette.text}, accent ${s.palette.accent}.`, '');
    const l = PDF_LOOKS[theme];
    const m = l.margins;
    lines.push(
      `Grid (src/exports/pdf/themes/${theme}.ts): margins ${m.inner}/${m.top}/${m.outer}/${m.bottom} mm inner/top/outer/bottom; long memories ${l.longSize} pt in ${l.longColumns === 2 ? 'two columns' : 'one column'} of ${l.longMeasure} characters ${l.column === 'centre' ? 'centred' : `against the ${l.column} edge`}, ${l.justify ? 'justified' : 'ragged-right'}; short memories ${l.quoteSize} pt ${l.align === 'center' ? 'centred' : 'flush left'}; photos up to ${Math.round(l.photoShare * 100)}% of the page across ${l.photoSpan < 1 ? `${Math.round(l.photoSpan * 100)}% of ` : ''}${l.photoWidth === 'live' ? 'the live area' : 'the text column'}${l.photoSpan < 1 ? (l.photoAlign === 'outer' ? ', hanging towards the fore-edge' : ', centred') : ''}, ${l.mount} mount${l.cards ? ', each memory on a card cut to the text column' : ''}; ${l.onePerPage ? 'one memory a page' : 'memories run on, several to a page'}${l.quoteFrame !== 'none' ? ` (a short one alone framed, ${l.quoteFrame})` : ''}; folio ${l.folioAt.replace('-', ' ')}${l.pageFrame !== 'none' ? `; ${l.pageFrame} frame on every page` : ''}. Pacing: ${l.inlinePhotos} photo${l.inlinePhotos === 1 ? '' : 's'} with a memory's words, the rest as ${l.breather === 'plate' ? 'plates' : `a photo a page (${Math.round(l.breatherSpan * 100)}% of the live area's width)`}${l.fullBleed ? ', a memory with one sharp photo opening on it bled off the page' : ''} after at most ${l.textRun} pages of words${l.pullQuote ? '; long letters open with a pull quote' : ''}${l.runningHead ? '; a short running head' : '; no running head'}. ${l.cover} cover${l.datedEntries ? '; entries headed by their date' : ''}${l.captionCaps ? '; dates in capitals' : ''}.`,
      '',
    );
  }
  return lines.join('\n');
}

/** The pictures placed on each page, and the area they cover (mm²), read back from the PDF. */
async function picturesByPage(pdf: string): Promise<Map<number, { count: number; area: number }>> {
  const { stdout } = await run('pdfimages', ['-list', pdf]);
  const byPage = new Map<number, { count: number; area: number }>();
  for (const row of stdout.split('\n').slice(2)) {
    const c = row.trim().split(/\s+/);
    if (c.length < 14 || c[2] !== 'image') continue;
    const [page, width, height, xppi, yppi] = [Number(c[0]), Number(c[3]), Number(c[4]), Number(c[12]), Number(c[13])];
    const area = ((width / xppi) * 25.4 * (height / yppi) * 25.4) | 0;
    // A QR code or an ornament is not a photo.
    if (area < 30 * 30) continue;
    const at = byPage.get(page) ?? { count: 0, area: 0 };
    byPage.set(page, { count: at.count + 1, area: at.area + area });
  }
  return byPage;
}

/**
 * Which page each memory's pictures were set on, worked out from the pages its words are on and the pictures
 * each page holds: a memory's pictures go with the start of its words, or on the page before when the words
 * did not fit below them.
 */
function placePictures(pageCount: number, linesOn: Map<number, Map<number, number>>, pictures: Map<number, { count: number }>): Map<number, number> {
  const firstPage = new Map<number, number>();
  for (let n = 1; n <= pageCount; n++) for (const id of linesOn.get(n)?.keys() ?? []) if (!firstPage.has(id)) firstPage.set(id, n);
  const left = new Map<number, number>();
  const placed = new Map<number, number>();
  for (let n = 1; n <= pageCount; n++) {
    left.set(n, pictures.get(n)?.count ?? 0);
    const starting = [...firstPage].filter(([id, page]) => page === n && MEMORIES[id].pictures.length).map(([id]) => id).sort((a, b) => a - b);
    for (const id of starting) {
      const need = MEMORIES[id].pictures.length;
      // Pictures no memory on their page claimed belong to the next memory with pictures.
      const at = (left.get(n - 1) ?? 0) >= need ? n - 1 : (left.get(n) ?? 0) >= need ? n : null;
      if (at === null) continue;
      placed.set(id, at);
      left.set(at, left.get(at)! - need);
    }
  }
  return placed;
}

/** What page n shows, in the order of the book: each memory's words (and its pictures when they are there too). */
function describe(n: number, linesOn: Map<number, Map<number, number>>, kinds: Map<number, string>, photoPages: Map<number, number>): string[] {
  const here = new Set(linesOn.get(n)?.keys() ?? []);
  const earlier = (id: number) => [...linesOn].some(([page, ids]) => page < n && ids.has(id));
  const ids = [...new Set([...here, ...[...photoPages].filter(([, page]) => page === n).map(([id]) => id)])].sort((a, b) => a - b);
  const parts = ids.map((id) => {
    const m = MEMORIES[id];
    if (!here.has(id)) return `the ${m.photos} of ${m.words}, whose words are ${n % 2 === 0 ? 'on the facing page' : 'overleaf'}`;
    const words = earlier(id) ? `${m.words} (continued)` : m.words;
    return photoPages.get(id) === n ? `${words}, with its ${m.photos}` : words;
  });
  if (kinds.get(n) === 'quote') parts.push('set as a quote page');
  return parts;
}

const SPREAD_DPI = 110;
const OVERVIEW_DPI = 44;
const MAT = '#8a8a8a';

/** Pages of the PDF, rendered at `dpi`, set side by side on a grey mat; `gaps` says where pages stand apart (not between facing pages). */
async function composite(pdf: string, pages: number[], dpi: number, gaps: boolean[], prefix: string) {
  const files: string[] = [];
  for (const n of pages) {
    await run('pdftoppm', ['-png', '-r', String(dpi), '-f', String(n), '-l', String(n), '-singlefile', pdf, `${prefix}-${n}`]);
    files.push(`${prefix}-${n}.png`);
  }
  const { width, height } = await sharp(files[0]).metadata();
  const gap = 14;
  const lefts: number[] = [];
  let x = gap;
  for (let i = 0; i < files.length; i++) {
    if (i > 0 && gaps[i - 1]) x += gap;
    lefts.push(x);
    x += width!;
  }
  const parts = files.map((input, i) => ({ input, left: lefts[i], top: gap }));
  // Where two pages face each other, a hairline shadow marks the fold.
  const folds = lefts
    .filter((_, i) => i > 0 && !gaps[i - 1])
    .map((left) => ({ input: { create: { width: 2, height: height!, channels: 4 as const, background: { r: 0, g: 0, b: 0, alpha: 0.18 } } }, left: left - 1, top: gap }));
  return sharp({ create: { width: x + gap, height: height! + gap * 2, channels: 3, background: MAT } }).composite([...parts, ...folds]);
}

async function main() {
  const only = process.argv.slice(2);
  const themes = only.length ? THEMES.filter((t) => only.includes(t)) : THEMES;
  const dir = await mkdtemp(path.join(tmpdir(), 'memorybook-gallery-'));
  const spreads = new Map<string, Spread[]>();
  try {
    const subjects = await writePhotos(dir, Object.entries(PICTURES).map(([key, aspect]) => ({ key, aspect })));
    const files = Object.fromEntries(Object.keys(PICTURES).map((key) => [key, path.join(dir, `${key}.jpg`)]));
    await mkdir(OUT, { recursive: true });
    for (const theme of themes) {
      const pdf = path.join(dir, `${theme}.pdf`);
      async function* memories(): AsyncGenerator<PdfMemory> {
        let i = 0;
        for (const { words: _, photos: __, ...m } of MEMORIES) yield { ...m, id: String(i), date: new Date(Date.UTC(2026, 9, 3 + 2 * i++)).toISOString() };
      }
      // Which memories set lines on which page, and what each page is.
      const linesOn = new Map<number, Map<number, number>>();
      const kinds = new Map<number, string>();
      const book = await renderPdfBook({
        title: 'Grandma turns 90',
        subtitle: 'Ninety years of lakes, songs and cardamom buns',
        theme,
        bleedMm: 0,
        gutterMm: 0,
        memoryCount: MEMORIES.length,
        memories: memories(),
        openPicture: async (key) => ({ path: files[key], subject: subjects.get(key), release: async () => {} }),
        output: createWriteStream(pdf),
        now: new Date(Date.UTC(2026, 10, 21)),
        coverPicture: 'lake',
        trace: {
          page: (n, kind) => kinds.set(n, kind),
          line: (n, id) => {
            const on = linesOn.get(n) ?? new Map<number, number>();
            on.set(Number(id), (on.get(Number(id)) ?? 0) + 1);
            linesOn.set(n, on);
          },
        },
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
        await run('pdftoppm', ['-png', '-r', String(OVERVIEW_DPI * 0.75), '-singlefile', wrap, path.join(dir, `${theme}-wrap-${withPhoto}`)]);
        wraps.push(path.join(dir, `${theme}-wrap-${withPhoto}.png`));
      }
      const wrapSize = await sharp(wraps[0]).metadata();
      const wrapOut = path.join(OUT, `${theme}-cover.png`);
      await sharp({ create: { width: wrapSize.width! + 28, height: wrapSize.height! * 2 + 42, channels: 3, background: MAT } })
        .composite(wraps.map((input, i) => ({ input, left: 14, top: 14 + i * (wrapSize.height! + 14) })))
        .png({ palette: true, colours: 128, effort: 10 })
        .toFile(wrapOut);
      console.log(path.relative(ROOT, wrapOut));

      // The overview: the cover, and the first spread facing each other.
      const out = path.join(OUT, `${theme}.png`);
      await (await composite(pdf, [1, 2, 3], OVERVIEW_DPI, [true, false], path.join(dir, `${theme}-small`))).png({ palette: true, colours: 128, effort: 10 }).toFile(out);
      console.log(path.relative(ROOT, out));

      // Two spreads: the one the long letter fills most, and the one with the most photograph on it.
      const pictures = await picturesByPage(pdf);
      const letter = MEMORIES.findIndex((m) => m.text === LETTER);
      const pairs: [number, number][] = [];
      // Pages of memories only: the cover's verso, notes pages and the last page are the same in every book.
      const ofMemories = (n: number) => kinds.get(n) === 'memories' || kinds.get(n) === 'quote';
      for (let n = 2; n + 1 <= book.pageCount; n += 2) if (ofMemories(n) && ofMemories(n + 1)) pairs.push([n, n + 1]);
      const score = (pair: [number, number], f: (n: number) => number) => f(pair[0]) + f(pair[1]);
      const byLetter = [...pairs].sort((a, b) => score(b, (n) => linesOn.get(n)?.get(letter) ?? 0) - score(a, (n) => linesOn.get(n)?.get(letter) ?? 0));
      const text = byLetter[0];
      const byPhotos = pairs.filter((p) => p !== text).sort((a, b) => score(b, (n) => pictures.get(n)?.area ?? 0) - score(a, (n) => pictures.get(n)?.area ?? 0));
      // Spreads of an earlier run are named by their pages, which move when the composer changes.
      for (const old of await readdir(OUT)) if (old.startsWith(`${theme}-pages-`)) await rm(path.join(OUT, old));
      const chosen = [byPhotos[0], text].filter(Boolean).sort((a, b) => a[0] - b[0]);
      const photoPages = placePictures(book.pageCount, linesOn, pictures);
      const list: Spread[] = [];
      for (const pair of chosen) {
        const file = `${theme}-pages-${pair[0]}-${pair[1]}.jpg`;
        const image = await composite(pdf, pair, SPREAD_DPI, [false], path.join(dir, `${theme}-spread`));
        await image.jpeg({ quality: 82, mozjpeg: true }).toFile(path.join(OUT, file));
        const says = (n: number) => describe(n, linesOn, kinds, photoPages).join('; ') || 'nothing';
        list.push({
          pages: pair,
          file,
          caption: `Pages ${pair[0]}–${pair[1]} at ${SPREAD_DPI} dpi, 210 mm square pages (${Math.round((210 / 25.4) * SPREAD_DPI)} px a page). Left: ${says(pair[0])}. Right: ${says(pair[1])}.`,
        });
        console.log(path.join('docs/themes', file), list.at(-1)!.caption);
      }
      spreads.set(theme, list);
    }
    if (!only.length) await writeFile(path.join(OUT, 'README.md'), galleryIndex(spreads));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
