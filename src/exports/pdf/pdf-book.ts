import PDFDocument from 'pdfkit';
import { finished } from 'node:stream/promises';
import { isJapanese } from '../../media-tools/font-fallback.js';
import { themeStyle, type ThemePalette } from '../../media-tools/themes.js';
import { coverPhotoBox, drawFrontCover, luminance, splitTitle, type BackText, type Panel } from './covers.js';
import { bookGeometry, mm, type Box } from './geometry.js';
import { drawFrame, drawPhotoCorners, mountPadding, PDF_LOOKS } from './pdf-themes.js';
import { frond } from './themes/ornaments.js';
import { CARD_PAD, COLUMN_GAP, gridCells, PHOTO_GAP, pageGrid, type GridCells, type PageGrid } from './grid.js';
import { photoLayout, type Cell } from './photo-layout.js';
import { endingPlan } from './ending-plan.js';
import { BAR_INDENT, gridBox, hangingX } from './swiss-grid.js';
import { aspectOf, cellAtLeast, cellForPhoto, ownShapeIn, prepareCroppedPicture, resamplePicture, uprightSize, type PreparedPicture } from './pictures.js';
import type { FocalPoint } from '../../media-tools/focal-crop.js';
import { makePdfX4, type PdfKitDoc } from './print-ready.js';
import { randomUUID } from 'node:crypto';
import QRCode from 'qrcode';
import { guessLanguage, hyphenatorFor } from './hyphenation.js';
import { contentsEntries, type ContentsEntry } from './contents.js';
import { albumCaption, type HeldPhoto } from './held-photos.js';
import { breathersWanted, keptHeld, photoInterval, quotableSentences, quotePageAllowed, reserveDue, RUN_PAGES_BREATHER, WORD_PAGES_MAX } from './pacing.js';
import { ALBUM_MAT_INSET_MM, albumMat, albumWindow, bledAcross, spreadMove, spreadPhotoAt } from './pages/album-spread.js';
import { drawScene, SCENE_SHARE } from './pages/illustration.js';
import { cardTopOver, centreOverCard, heldPageSizes, monthOfBook, tailQuoteRoom } from './picture-book.js';
import { chooseCellShape, holdsSubject, OTHER_SHAPES } from '../../media-tools/cell-shape.js';
import { subjectOfPhoto, type PhotoFile } from '../../media-tools/focal-crop.js';
import { afterPlatePages, mayDrawOn, PLATE_MAT, plateRoom, splitPlate } from './pages/catalogue.js';
import { hungBox } from './pages/hung-photo.js';
import { honouredOf, portraitBox } from './pages/frontispiece.js';
import { dropCapLines, DROP_LINES } from './pages/drop-cap.js';
import { ornamentHalfWidth } from './themes/ornaments.js';
import { edgeBleed, edgeBleedBox, edgeBleedCaptionBox, type EdgeBleed } from './pages/edge-bleed.js';
import { breakLines, evenLines as evenLinesOf, LINING_FIGURES, normalizeText, runsOf, smartPunctuation, type Line, type TextStyle } from './text-layout.js';
import { baselineOffset, drawLine as drawLineOn, emojiCredit, registerThemeFaces } from './typeset.js';
import { bookWords } from './book-words.js';
import { besideApplies, besideLayout } from './pages/beside.js';

/**
 * The printed book: a cover with the title and subtitle, then the approved
 * memories in book order, each with its photos and video poster frames,
 * its words, who wrote it and when; page numbers; the theme's typefaces
 * (embedded), colours and ornament. Pages are 210 mm square plus the bleed,
 * with TrimBox and BleedBox set, and the gutter added to the inner margin.
 *
 * It streams: PDFKit writes each page out when the next one starts and each
 * picture when it is placed, memories are read a chunk at a time, and only
 * a few pictures are prepared ahead, so memory stays flat whatever the size
 * of the book.
 */

export interface PdfPicture {
  /** Object-store key of a photo, or of a video's poster frame. */
  key: string;
  kind: 'photo' | 'video';
}

export interface PdfMemory {
  id: string;
  text: string;
  /** Who signed it; null when nobody is named. */
  signature: string | null;
  /** ISO timestamp of when it was sent. */
  date: string;
  pinned: boolean;
  pictures: PdfPicture[];
  /**
   * Its voice recordings and videos: each prints as a QR code to the page where it plays (`url`), with
   * what it is and how long; without a url only the words.
   */
  recordings: { kind: 'audio' | 'video'; url: string | null; duration: number | null; /** A completed transcript of it, printed under its code. */ transcript?: string | null }[];
}

export interface PdfBookInput {
  title: string;
  subtitle: string;
  theme: string;
  bleedMm: number;
  gutterMm: number;
  memoryCount: number;
  memories: AsyncIterable<PdfMemory>;
  /**
   * A readable file of a stored picture. A picture whose object is gone
   * should reject with a `missing` error (it is left out); any other
   * failure fails the render, so it is retried rather than printed without it.
   */
  openPicture(key: string): Promise<{ path: string; release(): Promise<void>; /** The subject found when it was processed (its media row's), if any: not looked for again. */ subject?: unknown }>;
  /** Whether an error of openPicture means the picture is simply gone. */
  isMissing?(err: unknown): boolean;
  /** Told about each picture left out (gone, or not decodable). */
  onPictureSkipped?(key: string, reason: string): void;
  output: NodeJS.WritableStream;
  signal?: AbortSignal;
  now?: Date;
  /**
   * For a print provider (the `shop` intent): PDF/X-4 with its output
   * intent, a page count that is a multiple of 4 (closing with notes pages
   * and a last page), and no small text reversed out of a dark page.
   */
  printReady?: boolean;
  /** Told what the book is made of as it is drawn (read-back tests); changes nothing in the PDF. */
  trace?: BookTrace;
  /**
   * The cover photo (a stored picture's key): the first page carries it in the theme's cover design. A book
   * going to print opens with the typographic title page instead: its cover wrap carries the photo.
   */
  coverPicture?: string | null;
  /**
   * When the book's first and last memories were sent: dates are printed only where they tell something
   * (none when all were sent the same day, the day in each byline across days and weeks, a chapter head
   * for each month across months). Unknown: each memory's day is printed.
   */
  dates?: { first: string; last: string } | null;
  /** Where the cover photo's subject is (the owner's `focal_point`): its crop is centred there. Detected when not given. */
  coverFocal?: FocalPoint | null;
  /** The book's language (its owner's `settings.language`): the book's own words (contents, ending, colophon) are set in it; English when unset. */
  language?: string | null;
}

/**
 * What each page is: designed pages (the cover and its verso, a quote page, notes pages, the last
 * page) are not filled with memories and may be mostly empty.
 */
export type PageKind = 'cover' | 'verso' | 'contents' | 'frontispiece' | 'memories' | 'quote' | 'plate' | 'breather' | 'notes' | 'blank' | 'contributors' | 'closing' | 'end';

export interface BookTrace {
  /** A page as it is begun, or again when what it is becomes known (a quote page). */
  page?(n: number, kind: PageKind): void;
  /**
   * A line of a memory's words as it is drawn, on page n: its baseline (points from the page's top
   * edge), the column it is set in, whether it was set flush on both sides, whether it starts or ends its
   * paragraph, and the size and style (italic or not) of the face it is set in.
   */
  line?(n: number, memoryId: string, line: { baseline: number; column: { x: number; w: number }; size: number; italic: boolean; long: boolean; justified: boolean; first: boolean; last: boolean; dir: 'ltr' | 'rtl'; align: 'left' | 'center' }): void;
  /**
   * A photo or video frame of a memory as it is drawn (not a gallery plate), on page n: where it is across the page
   * (points, its mount aside), and when beside its words (a diary's), its whole box with its mount and `beside`.
   */
  picture?(n: number, memoryId: string, at?: { x: number; w: number; y?: number; h?: number; beside?: boolean }): void;
  /** The theme's page grid (on a recto): the live area, text columns and photo cells per page type. */
  grid?(cells: GridCells): void;
  /** A picture book's drawn picture page (see PdfLook.illustrationRun), page n. */
  illustration?(n: number): void;
  /** A held photo set as a breather (alone on its page, or a plate) on page n, with its memory. */
  breather?(n: number, memoryId: string): void;
  /** A line of a memory's signature (who wrote it, when) as it is drawn, on page n, in its column. */
  signature?(n: number, memoryId: string, line: { baseline: number; column: { x: number; w: number } }): void;
  /**
   * A card pasted over its memory's photo (a baby book's note on a print), on page n: its top, the photo as drawn
   * (points from the page's top edge) and the photo's subject (fractions of it), when known.
   */
  card?(n: number, memoryId: string, card: { top: number; photo: { y: number; h: number }; subject: { x: number; y: number; w: number; h: number } | null }): void;
  /** The accent bar beside a memory's opening lines (a `quoteMark: 'bar'` theme), on page n: its left edge and top, and the column it marks. */
  bar?(n: number, memoryId: string, bar: { x: number; y: number; column: { x: number; w: number } }): void;
  /** The rules above and below a long letter's pull quote, on page n: their left edge and width (points), and the box the quote is set in. */
  pullRule?(n: number, memoryId: string, rule: { x: number; w: number; box: { x: number; w: number } }): void;
}

export interface PdfBookResult {
  pageCount: number;
  pictures: number;
  memories: number;
  /** The picture for the cover: the first pinned memory's first photo, else the book's first photo; null when it has none. */
  coverPictureKey: string | null;
  /** Photos that print below MIN_PRINT_PPI at their size in the book. */
  lowResolution: { key: string; ppi: number }[];
  /** For the back of the cover: the first short memory as a quote, and the first and last dates of the memories. */
  back: BackText;
}

/** Pictures prepared ahead of the page being laid out, and how many at once. */
const LOOKAHEAD_PICTURES = 6;
const PREPARE_CONCURRENCY = 2;

const GAP = 8;
/** Side of a printed QR code: 22 mm reads from a phone held at a book's distance. */
const QR_SIZE = mm(22);
/** Memories longer than this (characters) are set as text, not display type. */
const LONG_TEXT_CHARS = 480;
/** Below this a photo prints soft: the job says so in its warnings. */
export const MIN_PRINT_PPI = 200;
/**
 * The least a memory's photo block shrinks to (of its width and height, cells, gutters and mounts alike)
 * to go below what is on a page rather than overleaf; and to save a page from being left mostly empty.
 * Drawn smaller, a photo only prints sharper.
 */
const PHOTO_SCALE_FIT = 0.72;
// (Held photos now print next to their memory, so none is left waiting to fill a page left short: its memory's photos shrink a little further.)
const PHOTO_SCALE_SHORT = 0.5;
/** A memory of this many lines or fewer is never split over a page turn: it goes whole to the next page. */
const KEEP_WHOLE_LINES = 12;
/** A page of memories whose content spans less than this share of the live area's height is short of a page. */
const SPARSE_SHARE = 0.45;
/** The least space between two memories on a page: the ornament between them is drawn in more than 30 points. */
const BETWEEN_MIN = 32;
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
/** What a theme's measure is counted in: ordinary English prose (its letters, spaces and punctuation). */
const MEASURE_SAMPLE = 'We drove to the lake every August, and she always packed too many sandwiches and a thermos of sweet tea for the long way home; she taught the little ones to skip stones.';

/** What a book's dates tell: nothing (one day), the day of each memory (days and weeks), or its month (months). */
export type DateMode = 'none' | 'day' | 'month';
/** Memories spanning more days than this are grouped in months. */
const DAYS_BY_THE_DAY = 62;

export function dateModeOf(dates: { first: string; last: string } | null | undefined): DateMode {
  if (!dates) return 'day';
  const [first, last] = [new Date(dates.first), new Date(dates.last)];
  if (first.toISOString().slice(0, 10) === last.toISOString().slice(0, 10)) return 'none';
  return (last.getTime() - first.getTime()) / 86_400_000 > DAYS_BY_THE_DAY ? 'month' : 'day';
}

export async function renderPdfBook(input: PdfBookInput): Promise<PdfBookResult> {
  const style = themeStyle(input.theme);
  const look = PDF_LOOKS[style.theme];
  // The theme's ground, and the palette of the page being drawn: its paper on pages of words (see PdfLook.paper).
  const ground = style.palette;
  const p: ThemePalette = { ...ground };
  const g = bookGeometry(input.bleedMm, input.gutterMm, look.margins);
  const doc = new PDFDocument({
    size: [g.page, g.page],
    autoFirstPage: false,
    margin: 0,
    bufferPages: false,
    compress: true,
    pdfVersion: input.printReady ? '1.6' : '1.7', // PDF/X-4 is based on PDF 1.6
    displayTitle: true,
    lang: 'en',
    info: { Title: input.title, Subject: input.subtitle || 'A memory book', Creator: 'memorybook', Producer: 'memorybook (PDFKit)' },
  });
  const printX4 = input.printReady ? makePdfX4(doc as unknown as PdfKitDoc, { title: input.title, now: input.now ?? new Date(), documentId: randomUUID() }) : null;
  // Dark pages: small print there is set larger and in the text colour, as thin grey type reversed out of ink fills in on press.
  let reversed = luminance(p.background) < 0.35;
  const smallest = (size: number) => (input.printReady && reversed ? Math.max(size, 9) : size);
  let smallColour = input.printReady && reversed ? p.text : p.muted;
  /** Sets the palette for a page of this kind: the theme's paper where its words are read, else its ground. */
  function inkFor(kind: PageKind) {
    const onPaper = !!look.paper && kind !== 'cover' && (look.paper.pages === 'all' || PAPER_PAGES.has(kind));
    Object.assign(p, onPaper ? look.paper!.palette : ground);
    reversed = luminance(p.background) < 0.35;
    smallColour = input.printReady && reversed ? p.text : p.muted;
  }
  const written = finished(input.output);
  written.catch(() => {});
  doc.pipe(input.output as NodeJS.WritableStream);

  // Each memory takes the Japanese face for its kanji when it is Japanese; the book's own lines when its title is.
  const bookIsJapanese = isJapanese(input.title, input.subtitle);
  const bookText = bookWords(input.language);
  const { faces, fallbacks, fallbacksFor, measure } = registerThemeFaces(doc, style, { japanese: bookIsJapanese, text: look.textFace });
  /** Whether a registered face is an italic (the trace says so of each line). */
  /** A face's capitals' height as a share of its size (its font's metrics; 0.7 when it does not say). */
  const capHeightOf = (face: string) => {
    const font = (doc.font(face) as unknown as { _font?: { font?: { capHeight?: number; unitsPerEm?: number } } })._font?.font;
    return font?.capHeight && font.unitsPerEm ? font.capHeight / font.unitsPerEm : 0.7;
  };
  const italicFace = (face: string) => (face === faces.quote ? style.quote : face === faces.title ? style.title : face === faces.body ? style.body : null)?.style === 'italic';

  // What the memories' dates tell (see DateMode): the months a book spans open chapters.
  const dateMode = dateModeOf(input.dates);
  let chapter: string | null = null;

  // The theme's grid: its measure is so many characters of its text face (their average width in a Latin sample).
  const measureSample: TextStyle = { face: faces.text, fallbacks: [], size: look.longSize, leading: look.longLeading };
  const charWidth = breakLines(measure, MEASURE_SAMPLE, measureSample, Number.MAX_SAFE_INTEGER)[0].width / MEASURE_SAMPLE.length;
  const gridOn = (n: number): PageGrid => pageGrid(look, g, n, charWidth);
  input.trace?.grid?.(gridCells(gridOn(3)));

  // A running head only in a theme that wants one, and only a short one: the short title, as written.
  const shortTitle = splitTitle(input.title, '').title.replace(/\s+/g, ' ').trim();
  const runningHead = look.runningHead && shortTitle.length <= 30 ? shortTitle : null;
  // The back cover quotes a memory in the book's own script (its title's), never one in another.
  const bookScript = dominantScript(`${input.title} ${input.subtitle}`);

  let pageNo = 0;
  let content: Box = g.content(1);
  let y = 0;
  let pictureCount = 0;
  let memoryCount = 0;
  /** What the page being set is, and whether a photo (or a quote page's design) is on it: pages of words only make a run (see pacing.ts). */
  let pageKind: PageKind = 'cover';
  let pagePictured = false;
  /** Whether a photo is on the page being set (a quote page is still words to a reader: see pacing.ts). */
  let pagePhoto = false;
  /** Pages of memories with words only set in a row, up to the page before this one. */
  let wordPages = 0;
  /** Pages without a photo in a row as a reader counts them (a quote page is words too), up to the page before this one. */
  let sincePhoto = 0;
  /** The run of pages of words the page being set ends, itself counted when it has no photo (0 when it has one). */
  const runPages = () => (pagePhoto || !['memories', 'quote'].includes(pageKind) ? 0 : sincePhoto + 1);

  function newPage(kind: PageKind): number {
    if (pageNo) sincePhoto = pagePhoto || ['plate', 'breather', 'closing'].includes(pageKind) ? 0 : pageKind === 'memories' || pageKind === 'quote' ? sincePhoto + 1 : sincePhoto;
    doc.addPage({ size: [g.page, g.page], margin: 0 });
    pageNo++;
    [pageKind, pagePictured, pagePhoto] = [kind, false, false];
    input.trace?.page?.(pageNo, kind);
    const dict = (doc.page as unknown as { dictionary: { data: Record<string, unknown> } }).dictionary.data;
    dict.TrimBox = g.trimBox;
    dict.BleedBox = g.bleedBox;
    printX4?.onPage();
    // The background runs into the bleed, so nothing white shows at a trimmed edge.
    inkFor(kind);
    doc.rect(0, 0, g.page, g.page).fill(p.background);
    return pageNo;
  }

  /**
   * A page of memories that turned out a quote page, in a theme that sets its words on paper: back on the theme's
   * ground, its folio again; more than a line or two (GROUND_QUOTE_CHARS) is read, and stays on the paper.
   */
  function quoteOnGround(q: QuoteDesign) {
    if (!look.paper || look.paper.pages === 'all' || normalizeText(q.text).length > GROUND_QUOTE_CHARS) return;
    inkFor('quote');
    doc.rect(0, 0, g.page, g.page).fill(p.background);
    folio(pageNo);
  }

  function memoryPage() {
    // A memory still being set goes on overleaf: what it drew here is continued there.
    const open = groups.at(-1);
    const carried = open && !open.closed ? open : null;
    if (carried && carried.ops.length) carried.flowsOn = true;
    if (carried && !carried.ops.length) groups.pop();
    flushPage();
    wordPages = pageKind === 'memories' && !pagePictured ? wordPages + 1 : 0;
    // An album's spread: the photo of the memory whose words open on the verso just set has the recto facing it.
    if (facingPhoto) {
      spreadPhotoPage(facingPhoto);
      [facingPhoto, wordPages] = [null, 0];
    }
    // A long memory's own held photos come through its pages: the next after a page or two of its words.
    // (In a theme that hangs them, a single one hangs at the top of the next page of its words instead.)
    const own = spread?.pages.length && spread.from <= pageNo && wordPages >= spread.every ? spread.pages.shift()! : null;
    // Book-wide (see pacing.ts): a long enough run of words takes a photo from the book's reserve at this turn.
    const next = own ?? (!due.length && runPages() >= RUN_PAGES_BREATHER ? (reserve.shift() ?? null) : null);
    const hang = next && look.hangHeld && !next.pair && !next.photos[0].photo.plate && !next.photos[0].photo.edge ? next : null;
    if (next && !hang) due.push(next);
    // Photos the memory before held back come at the first turn of a page after it (in the middle of a long letter too).
    if (due.length) wordPages = 0;
    while (due.length && mayDrawOn(due[0], pageNo + 1)) drawDuePage(due.shift()!, false);
    // No photo at hand after a run of words: a sentence of the memory being read, set as a quote page.
    // (A picture book breaks it sooner, with a drawn picture: see PdfLook.illustrationRun.)
    if (look.illustrationRun && wordPages >= look.illustrationRun && illustrationPage()) wordPages = 0;
    if (wordPages >= WORD_PAGES_MAX && pacingQuote()) wordPages = 0;
    const n = newPage('memories');
    content = g.content(n);
    y = content.y;
    decorateDue = n;
    if (hang) {
      y = hangPhoto(hang.photos[0].photo, hang.photos[0].h, n);
      hungOn = { page: n, below: y };
    }
    if (carried) groups.push({ ops: [], top: y, bottom: y, continued: carried.ops.length > 0, flowsOn: false, closed: false, quote: carried.quote });
  }

  /** The page a photo was hung at the head of, and where the room under it starts (the page's groups balance below it). */
  let hungOn: { page: number; below: number } | null = null;
  /** A held photo hung at the top of page n, its caption under it (see pages/hung-photo.ts); returns where the words go on. */
  function hangPhoto(photo: Placed, h: HeldPhoto, n: number): number {
    const [top, right, bottom, left] = mountPadding(look.mount);
    const box = hungBox({ w: photo.width, h: photo.height }, gridOn(n).photos, content, g.isRecto(n), { top, right, left }, look.photoAlign === 'centre', look.hungShare);
    placePicture({ ...photo, width: box.w, height: box.h }, box.x, box.y, false);
    const captionStyle: TextStyle = { face: faces.body, fallbacks: fallbacksFor(h.japanese).body, size: smallest(look.captionSize), leading: 1.3, characterSpacing: look.captionCaps ? 0.6 : 0, features: LINING_FIGURES };
    const [line] = breakLines(measure, look.captionCaps ? h.caption.toUpperCase() : h.caption, captionStyle, box.w);
    const captionY = box.y + box.h + bottom + mm(5);
    const lineX = look.photoAlign === 'centre' ? box.x + (box.w - (line?.width ?? 0)) / 2 : g.isRecto(n) ? box.x + box.w - (line?.width ?? 0) : box.x;
    if (line) drawLine(line, lineX, captionY, captionStyle, smallColour);
    input.trace?.breather?.(n, h.memoryId);
    pictureCount++;
    return captionY + mm(9);
  }

  /** The page's number of a memory page whose frame, running head and folio are still to draw (when the page is drawn: a plate has none). */
  let decorateDue: number | null = null;
  function decorate() {
    if (decorateDue === null) return;
    const n = decorateDue;
    decorateDue = null;
    const t = g.trimmed();
    const { frame, head } = gridOn(n);
    if (frame) drawFrame(doc, look.pageFrame, frame, 0, p.accent, 0.5);
    // Running head: the book's short title (before a natural break), small, where the grid puts it; none when
    // even that is long (a running head is a reminder, not a second title page).
    if (runningHead && head) drawCentredLine(runningHead, { face: faces.body, fallbacks: fallbacks.body, size: smallest(7.5), leading: 1, characterSpacing: 0.3, features: LINING_FIGURES }, head.x, head.y, smallColour, head.w);
    if (look.cornerOrnament) {
      // A spray of fronds in the outer head corner of the wide margins, growing in towards the page (clear of the live area).
      const recto = g.isRecto(n);
      const [ox, oy] = [recto ? t.x + t.w - mm(11) : t.x + mm(11), t.y + mm(10)];
      for (const [length, angle] of [[mm(25), 38], [mm(17), 12], [mm(13), 66]] as const) frond(doc, ox, oy, length, recto ? 180 - angle : angle, p, 7);
    }
    folio(n);
  }

  // ---- a page composed before it is drawn ----

  /** A drawing call, given how far down the page it is moved when the page is balanced. */
  type Op = (dy: number) => void;
  /** One memory's part of a page: what it draws, and where it starts and ends before balancing. */
  interface Group {
    ops: Op[];
    top: number;
    bottom: number;
    /** It began on an earlier page (so it stays at the top), or goes on to the next (so the page is full). */
    continued: boolean;
    flowsOn: boolean;
    closed: boolean;
    /** A short memory with no pictures (a QR code may go with it): alone on its page it is set as a quote page. */
    quote: QuoteDesign | null;
    /** A memory of a word or two (TINY_WORDS), never a quote page: set at its ordinary size with its neighbours. */
    tiny?: boolean;
    /** A card pasted over its photo's foot (PdfLook.cardOverlap): drawn before its op at `cardAt`, from `cardTop` down. */
    cardAt?: number;
    cardTop?: number;
  }
  /** What a quote page sets: the words, larger, and what goes with them. */
  interface QuoteDesign {
    memoryId: string;
    text: string;
    /** The memory's quote style, with its own fallback faces. */
    style: TextStyle;
    pinned: boolean;
    align: 'left' | 'center';
    /** A chapter's month or a journal entry's day, set above the words; null when the dates tell nothing here. */
    heading: string | null;
    sigLines: Line[];
    /** The signature's style, with the memory's own fallback faces. */
    sigStyle: TextStyle;
    codes: Code[];
    /** A sentence pulled from a long memory (its words are set where they belong too): not traced as the memory's lines. */
    pulled?: boolean;
  }
  interface Code {
    url: string | null;
    lines: Line[];
    /** The caption's style, with the memory's own fallback faces. */
    style: TextStyle;
    /** A completed transcript of the recording, set under the code in the theme's text face. */
    transcript: Line[];
    transcriptStyle: TextStyle;
  }
  /** Lines of a transcript printed under its code at most: a longer one ends with an ellipsis (the recording is a scan away). */
  const TRANSCRIPT_LINES = 14;

  /** A recording's block: “Hear Natalya’s voice (1:23)” beside its QR code, its transcript under it. */
  function voiceBlock(r: PdfMemory['recordings'][number], signature: string | null, style: TextStyle, textFallbacks: TextStyle['fallbacks'], width: number): Code {
    const length = r.duration ? ` (${Math.floor(r.duration / 60)}:${String(Math.round(r.duration % 60)).padStart(2, '0')})` : '';
    const who = signature ? `${signature}\u2019s` : 'the';
    const what = r.kind === 'audio' ? `${who} voice${length}` : `${who} video${length}`;
    const caption = r.url ? `${r.kind === 'audio' ? 'Hear' : 'Watch'} ${what}` : `With ${what}`;
    const transcriptStyle: TextStyle = { face: faces.text, fallbacks: textFallbacks, size: Math.max(smallest(look.captionSize + 1), 8.5), leading: 1.4 };
    let transcript: Line[] = [];
    if (r.transcript?.trim()) {
      const text = smartPunctuation(`\u201C${r.transcript.trim()}\u201D`);
      transcript = breakLines(measure, text, { ...transcriptStyle, hyphenate: hyphenatorFor(guessLanguage(text)) }, width);
      if (transcript.length > TRANSCRIPT_LINES) {
        // The most words (characters, in writing without spaces) that fit, an ellipsis closing them.
        const units = /\s/.test(text) ? text.split(/(?<=\s)/) : Array.from(text);
        const upTo = (n: number) => breakLines(measure, `${units.slice(0, n).join('').trimEnd()}\u2026\u201D`, transcriptStyle, width);
        let [lo, hi] = [1, units.length];
        while (lo < hi) {
          const mid = Math.ceil((lo + hi) / 2);
          if (upTo(mid).length <= TRANSCRIPT_LINES) lo = mid;
          else hi = mid - 1;
        }
        transcript = upTo(lo);
      }
    }
    return { url: r.url, lines: breakLines(measure, caption, style, width - (r.url ? QR_SIZE + 10 : 0)), style, transcript, transcriptStyle };
  }
  let groups: Group[] = [];
  const paint = (op: Op) => groups.at(-1)!.ops.push(op);

  /**
   * Draws the page's memories with its free space shared out: evenly above, between and below them
   * (the theme's ornament in the middle of each space between), so a page never hangs from the top.
   * A memory that began overleaf keeps its place at the top; a page a memory runs off is full already.
   * A short memory alone on its page becomes a quote page: centred, between two of the theme's ornaments.
   */
  function flushPage() {
    decorate();
    const list = groups.filter((gr) => gr.ops.length);
    groups = [];
    if (!list.length) return;
    const bottom = content.y + content.h;
    const shifts = balance(list);
    if (isQuotePage(list)) {
      input.trace?.page?.(pageNo, 'quote');
      quoteOnGround(list[0].quote!);
      quotePage(list[0].quote!);
      return;
    }
    if (look.tailQuote && tailQuote(list)) return;
    list.forEach((gr, i) => {
      const card = gridOn(pageNo).card;
      // The card, cut to the text column, runs past the page's edge of the live area where the memory goes on from, or to, another page.
      const paste = (top: number) => pasteCard(top, gr.flowsOn ? bottom + CARD_PAD : gr.bottom + shifts[i] + CARD_PAD, gr.cardAt !== undefined);
      // (A theme that pastes cards over photos sets a letter's running pages on the paper itself: a card the size of a page reads as a form.)
      const bare = look.cardOverlap && gr.cardAt === undefined && ((gr.continued && i === 0) || gr.flowsOn);
      if (card && gr.cardAt === undefined && !bare) paste(gr.continued && i === 0 ? content.y - CARD_PAD : gr.top + shifts[i] - CARD_PAD);
      for (const [k, op] of gr.ops.entries()) {
        if (card && k === gr.cardAt) paste(gr.cardTop! + shifts[i]);
        op(shifts[i]);
      }
      if (i > 0) {
        // The ornament between two memories, in the middle of the space between them.
        const above = list[i - 1].bottom + shifts[i - 1];
        const below = gr.top + shifts[i];
        if (below - above > 30 && look.ornamentBetween) look.ornament(doc, content.x + content.w / 2, (above + below) / 2, 0.7, p);
      }
    });
  }

  /** A memory's card from top to end on the page (see PdfLook.cards); pasted over a photo, opaque, with a soft shadow. */
  function pasteCard(top: number, end: number, overPhoto: boolean) {
    const card = gridOn(pageNo).card!;
    if (overPhoto) doc.save().roundedRect(card.x + 1.5, top + 2.5, card.w, end - top, mm(5)).fillOpacity(0.12).fill('#000000').restore();
    doc.save().roundedRect(card.x, top, card.w, end - top, mm(5)).fillOpacity(overPhoto ? 1 : 0.85).fill('#FFFFFF').restore();
  }

  /**
   * A letter's last lines with a short memory under them, on a page they leave mostly empty: the short memory set
   * as a quote page sets one, in the room below the lines (see PdfLook.tailQuote); false when the page is not that.
   */
  function tailQuote(list: Group[]): boolean {
    const room = tailQuoteAt(list);
    if (!room) return false;
    const [tail, short] = list;
    if (!short.quote) return false;
    if (gridOn(pageNo).card && !look.cardOverlap) pasteCard(content.y - CARD_PAD, tail.bottom + CARD_PAD, false);
    for (const op of tail.ops) op(0);
    // (Set large, the words break a run of pages of words as a quote page does.)
    const page = content;
    content = { ...content, y: room.y, h: room.h };
    quotePage(short.quote);
    content = page;
    return true;
  }

  /** Where tailQuote sets the short memory of a page of a letter's last lines and it; null when the page is not that. */
  function tailQuoteAt(list: Group[]): { y: number; h: number } | null {
    const [tail, short] = list;
    if (list.length !== 2 || !tail.continued || tail.flowsOn || !short.quote || short.continued || short.flowsOn) return null;
    return tailQuoteRoom(content, tail.bottom, short.bottom - short.top, mm(14));
  }

  /**
   * A page a letter's last lines leave mostly empty, before a memory that opens a page of its own with its photo:
   * a sentence of the letter set large under them (as a pacing quote page sets one); false when the page holds
   * more than those lines, or the letter has no sentence left to set. Set by tailQuote when the page is drawn.
   */
  function tailPull(letter: typeof reading): boolean {
    const list = groups.filter((gr) => gr.ops.length);
    if (list.length !== 1 || !list[0].continued || !list[0].closed || !letter?.sentences.length) return false;
    const design: QuoteDesign = { ...letter.design, text: letter.sentences[0], pulled: true };
    if (!tailQuoteAt([list[0], { ops: [], top: y, bottom: y, continued: false, flowsOn: false, closed: true, quote: design }])) return false;
    letter.sentences.shift();
    groups.push({ ops: [() => {}], top: y, bottom: y, continued: false, flowsOn: false, closed: true, quote: design });
    return true;
  }

  /** How far down each of a page's groups moves when its free space is shared out (see flushPage). */
  function balance(list: Group[]): number[] {
    const last = list[list.length - 1];
    const pinnedTop = list[0].continued;
    // (The room starts under a photo hung at the page's head, which is drawn with the page, not one of its groups.)
    const top = hungOn?.page === pageNo ? hungOn.below : content.y;
    const free = last.flowsOn ? 0 : Math.max(0, content.y + content.h - last.bottom + (pinnedTop ? 0 : list[0].top - top));
    const slots = list.length + (pinnedTop ? 0 : 1);
    const share = free / slots;
    // Where each group's top goes: the space before it is a share, the natural gap between groups stays.
    let shift = pinnedTop ? 0 : top - list[0].top + share;
    return list.map((gr, i) => {
      if (i > 0) shift += share;
      return shift;
    });
  }

  /** The page holds two or three short memories set together (none a letter's part), room for another. */
  const shortsTogether = () => {
    const list = groups.filter((gr) => gr.ops.length);
    return list.length >= 2 && list.length < 4 && list.every((gr) => gr.quote && !gr.continued);
  };
  const isQuotePage = (list: Group[]) => list.length === 1 && !!list[0].quote && !list[0].continued && !list[0].flowsOn;
  /** The page of the last quote page (0: none yet): the next comes no sooner than the theme's quoteEvery allows. */
  let lastQuotePage = 0;
  /** Turning the page now would leave it a quote page too soon after the last one. */
  const quoteTooSoon = () => isQuotePage(groups.filter((gr) => gr.ops.length)) && !quotePageAllowed(pageNo, lastQuotePage, look.quoteEvery);

  /**
   * Whether the page as composed so far would print as a page of memories mostly empty: what it holds,
   * balanced, spans under SPARSE_SHARE of the live area's height (a quote page is designed, never that).
   */
  function pageShort(): boolean {
    const list = groups.filter((gr) => gr.ops.length);
    if (!list.length || isQuotePage(list)) return false;
    const shifts = balance(list);
    const [first, last] = [list[0], list[list.length - 1]];
    const top = first.continued ? content.y : first.top + shifts[0];
    const end = last.flowsOn ? content.y + content.h : last.bottom + shifts[list.length - 1];
    return end - top < content.h * SPARSE_SHARE;
  }

  /**
   * A short memory alone on its page, set as a designed page: display type scaled to how short it is (a line of
   * a few words nearly fills the measure, a paragraph sits a little above its usual size), its lines evened
   * out, the block centred on the live area between two of the theme's ornaments.
   */
  function quotePage(q: QuoteDesign) {
    pagePictured = true;
    lastQuotePage = pageNo;
    const base = q.style;
    const chars = Math.max(1, normalizeText(q.text).length);
    // On a card the words keep to the card's column; else they take the live area.
    const card = gridOn(pageNo).card;
    const area = card ? gridOn(pageNo).column : content;
    if (look.quoteFrame !== 'none') drawFrame(doc, look.quoteFrame, gridOn(pageNo).frameBox, 0, p.accent, 0.5);
    const width = q.align === 'center' ? area.w * (card ? 1 : 0.86) : area.w - barIndent;
    const box = { x: q.align === 'center' ? area.x + (area.w - width) / 2 : area.x + barIndent, w: width };
    const gap = mm(14);
    const sigH = 6 + q.sigLines.length * q.sigStyle.size * q.sigStyle.leading + codesHeight(q.codes);
    const heading = q.heading ? breakLines(measure, q.heading, dateStyle, width) : [];
    const headingH = heading.length ? heading.length * dateStyle.size * dateStyle.leading + 6 : 0;
    let size = look.displayQuotes || q.pulled ? quoteTypeSize(base.size, chars) : base.size;
    let s: TextStyle = base;
    let lines: Line[] = [];
    let markH = 0;
    let textH = 0;
    for (;;) {
      s = { ...base, size, leading: Math.max(1.18, look.leading - (size / base.size - 1) * 0.12) };
      lines = evenLines(q.text, s, width);
      const pitch = s.size * s.leading;
      textH = lines.reduce((n, l) => n + pitch + (l.paragraphStart ? pitch * 0.45 : 0), 0);
      markH = (look.quoteMark === 'glyph' ? size * 1.5 : 0) + headingH;
      // (Nor so large that a word is wider than the measure and splits without a hyphen.)
      if ((markH + textH + sigH + 2 * gap <= content.h && !lines.some((l) => l.splitWord)) || size <= base.size) break;
      size = Math.max(base.size, size - 1);
    }
    const total = markH + textH + sigH;
    const top = content.y + Math.max(0, (content.h - total) / 2);
    const cx = area.x + area.w / 2;
    if (card) doc.save().roundedRect(card.x, top - mm(7), card.w, total + mm(14), mm(5)).fillOpacity(0.85).fill('#FFFFFF').restore();
    // (Flush left, they start where the words' bar does.)
    const ox = look.ornamentFlush && q.align !== 'center' ? box.x - barIndent + ornamentHalfWidth(look.ornament) : cx;
    look.ornament(doc, ox, Math.max(content.y + 8, top - gap), 1, p);
    look.ornament(doc, ox, Math.min(content.y + content.h - 8, top + total + gap), 1, p);
    let at = top;
    if (heading.length) {
      drawBlock(heading, dateStyle, box, at, 'left', p.accent);
      doc.save().lineWidth(0.8).strokeColor(p.accent).moveTo(box.x, at + headingH - 5).lineTo(box.x + Math.min(heading[0].width, width), at + headingH - 5).stroke().restore();
    }
    if (look.quoteMark === 'glyph') {
      const markStyle: TextStyle = { face: faces.quote, fallbacks: [], size: size * 2.4, leading: 1 };
      const [mark] = breakLines(measure, '“', markStyle, 400);
      drawLine(mark, q.align === 'center' ? cx - mark.width / 2 : box.x, at + headingH + size * 1.5, markStyle, p.accent);
    }
    at += markH;
    if (look.quoteMark === 'bar') {
      // Beside a right-to-left memory the bar hangs on the right, where its lines start.
      const [barW, rtl] = [2.6 * (size / base.size), lines[0]?.dir === 'rtl' && q.align !== 'center'];
      const bx = rtl ? box.x + box.w + barIndent - barW : box.x - barIndent;
      doc.save().rect(bx, at + 1, barW, textH - 2).fill(p.accent).restore();
      if (!q.pulled) input.trace?.bar?.(pageNo, q.memoryId, { x: bx, y: at + 1, column: box });
    }
    const pitch = s.size * s.leading;
    for (const [k, line] of lines.entries()) {
      if (line.paragraphStart) at += pitch * 0.45;
      drawLine(line, lineX(line, box, q.align), at + baselineOffset(s), s, p.text);
      if (!q.pulled) input.trace?.line?.(pageNo, q.memoryId, { baseline: at + baselineOffset(s), column: box, size: s.size, italic: italicFace(s.face), long: false, justified: false, first: k === 0 || line.paragraphStart, last: !!line.last, dir: line.dir, align: q.align });
      at += pitch;
    }
    at = drawBlock(q.sigLines, q.sigStyle, box, at + 6, q.align, p.muted, (baseline) => q.pulled || input.trace?.signature?.(pageNo, q.memoryId, { baseline, column: box }));
    layCodes(q.codes, box, at, q.align, (op) => op(0));
  }

  const evenLines = (text: string, s: TextStyle, width: number): Line[] => evenLinesOf(measure, text, s, width);

  /** A journal entry's date at y, written in the accent colour and underlined like a diary's. */
  function paintHeading(heading: Line[], hx: number, width: number, height: number, ink = p.accent) {
    const [hy, hw] = [y, heading[0].width];
    paint((dy) => {
      drawBlock(heading, dateStyle, { x: hx, w: width }, hy + dy, 'left', ink);
      // (A diary's day is written in ink, its underline the accent's.)
      doc.save().lineWidth(0.8).strokeColor(p.accent).moveTo(hx, hy + dy + height - 5).lineTo(hx + Math.min(hw, width), hy + dy + height - 5).stroke().restore();
    });
  }

  const transcriptHeight = (c: Code) => (c.transcript.length ? 6 + c.transcript.length * c.transcriptStyle.size * c.transcriptStyle.leading : 0);
  const codesHeight = (codes: Code[]) => codes.reduce((n, c) => n + 8 + (c.url ? QR_SIZE : c.lines.length * c.style.size * c.style.leading) + transcriptHeight(c), 0);

  /** Recordings' QR codes under each other, with what each is beside it (one row width for all); returns the y below. */
  function layCodes(codes: Code[], col: { x: number; w: number }, top: number, align: 'left' | 'center', put: (op: Op) => void): number {
    const codesW = Math.max(0, ...codes.map((c) => QR_SIZE + 10 + Math.max(...c.lines.map((l) => l.width))));
    let at = top;
    for (const c of codes) {
      at += 8;
      const lineH = c.style.size * c.style.leading;
      if (!c.url) {
        const [lines, cy, style] = [c.lines, at, c.style];
        put((dy) => drawBlock(lines, style, col, cy + dy, align, p.muted));
        at += lines.length * lineH;
        at = layTranscript(c, col, at, align, put);
        continue;
      }
      const textW = codesW - QR_SIZE - 10;
      const x = align === 'center' ? col.x + (col.w - codesW) / 2 : col.x;
      const [url, qy, lines, style] = [c.url, at, c.lines, c.style];
      const captionTop = at + (QR_SIZE - lines.length * lineH) / 2;
      put((dy) => {
        drawQr(url, x, qy + dy);
        drawBlock(lines, style, { x: x + QR_SIZE + 10, w: textW }, captionTop + dy, 'left', p.muted);
      });
      at += QR_SIZE;
      at = layTranscript(c, col, at, align, put);
    }
    return at;
  }

  /** A recording's transcript under its code, in the column; returns the y below. */
  function layTranscript(c: Code, col: { x: number; w: number }, top: number, align: 'left' | 'center', put: (op: Op) => void): number {
    if (!c.transcript.length) return top;
    const [lines, style, at] = [c.transcript, c.transcriptStyle, top + 6];
    put((dy) => drawBlock(lines, style, col, at + dy, align, p.text));
    return top + transcriptHeight(c);
  }

  /**
   * A gallery plate: the photo alone on its page, running off every edge into the bleed (no mount, running
   * head or folio); the memory's words follow on the next page, its caption.
   */
  function plate(pic: PreparedPicture) {
    if (!atTop() || groups.some((gr) => gr.ops.length)) memoryPage();
    decorateDue = null;
    pagePictured = pagePhoto = true;
    input.trace?.page?.(pageNo, 'plate');
    doc.image(pic.jpeg, 0, 0, { width: g.page, height: g.page });
    pic.jpeg = Buffer.alloc(0);
    pictureCount++;
    memoryPage();
  }

  /** An album's spread: the photo of a memory waiting for the recto that faces its words (see pages/album-spread.ts). */
  let facingPhoto: SpreadPhoto | null = null;
  /** A memory's photo for its album spread: its plate (bled), else its page's own print (`album`), else its block's. */
  type SpreadPhoto = { pic: Placed | PreparedPicture; bleed: boolean; memoryId: string; album?: PagePicture };

  /** A memory's photo alone on a new page (or the memory page just begun): bled off every edge or across the page's width, or on the album's mat, centred a little above the middle. */
  function spreadPhotoPage(s: SpreadPhoto, onCurrent = false) {
    const kind: PageKind = s.bleed || s.album?.across ? 'plate' : 'breather';
    if (onCurrent) {
      input.trace?.page?.(pageNo, kind);
      [pageKind, decorateDue] = [kind, null];
    }
    const n = onCurrent ? pageNo : newPage(kind);
    content = g.content(n);
    if (s.bleed) {
      pagePictured = pagePhoto = true;
      doc.image(s.pic.jpeg, 0, 0, { width: g.page, height: g.page });
      s.pic.jpeg = Buffer.alloc(0);
      pictureCount++;
    } else if (s.album?.across) {
      pagePictured = true;
      drawBledAcross(s.album);
      pictureCount++;
    } else {
      // (On its mat, as an album's picture page, without a folio; in its own print, as large as the mat allows.)
      const pic = s.album ?? (s.pic as Placed);
      const at = spreadPhotoAt(albumWindow(drawAlbumMat()), pic, mountPadding(look.mount));
      placePicture(pic, at.x, at.y);
    }
    input.trace?.picture?.(n, s.memoryId);
  }

  /** A photo bled across the page's width: off the top and both sides into the bleed. */
  function drawBledAcross(pic: PagePicture) {
    doc.image(pic.jpeg, 0, 0, { width: pic.width, height: pic.height });
    pic.jpeg = Buffer.alloc(0);
  }

  /** An album's page for a photo: a white mat board filling the page but an even margin, its edge ruled; returns it. */
  function drawAlbumMat(): Box {
    const mat = albumMat(g.trimmed(), mm(ALBUM_MAT_INSET_MM));
    doc.save().fillOpacity(0.8).rect(mat.x, mat.y, mat.w, mat.h).fill('#FFFFFF').restore();
    doc.save().lineWidth(0.5).strokeColor(p.accent).rect(mat.x + mm(2), mat.y + mm(2), mat.w - mm(4), mat.h - mm(4)).stroke().restore();
    return mat;
  }

  function folio(n: number) {
    const { x: cx, y: cy } = gridOn(n).folio;
    const s: TextStyle = { face: faces.body, fallbacks: [], size: smallest(8.5), leading: 1 };
    if (look.folio === 'disc') {
      doc.save().circle(cx, cy - 3, 9).fill(p.accent).restore();
      drawCentredLine(String(n), s, cx, cy, p.background, 40);
    } else {
      drawCentredLine(look.folio === 'dashes' ? `— ${n} —` : String(n), s, cx, cy, smallColour, 80);
    }
  }

  /** One line of text centred on cx with its baseline at `baseline`, shrunk to `maxWidth` if need be. */
  function drawCentredLine(text: string, s: TextStyle, cx: number, baseline: number, colour: string, maxWidth: number) {
    const [line] = breakLines(measure, text.replace(/\s+/g, ' '), s, Number.MAX_SAFE_INTEGER);
    if (!line) return;
    let size = s.size;
    if (line.width > maxWidth) size = Math.max(5, (s.size * maxWidth) / line.width);
    const scaled = size === s.size ? line : breakLines(measure, text.replace(/\s+/g, ' '), { ...s, size }, Number.MAX_SAFE_INTEGER)[0];
    drawLine(scaled, cx - scaled.width / 2, baseline, { ...s, size }, colour);
  }

  function drawLine(line: Line, x: number, baseline: number, s: TextStyle, colour: string, justifyTo?: number) {
    drawLineOn(doc, line, x, baseline, s, colour, justifyTo);
  }

  /** Where a line starts in a column: right-to-left paragraphs are set from the right edge. */
  function lineX(line: Line, box: { x: number; w: number }, align: 'left' | 'center'): number {
    if (align === 'center') return box.x + (box.w - line.width) / 2;
    return line.dir === 'rtl' ? box.x + box.w - line.width : box.x;
  }

  /** drawBlock as part of the page being composed (drawn when the page is balanced). */
  function paintBlock(lines: Line[], s: TextStyle, box: { x: number; w: number }, top: number, align: 'left' | 'center', colour: string, onLine?: (baseline: number) => void): number {
    const b = { ...box };
    paint((dy) => drawBlock(lines, s, b, top + dy, align, colour, onLine));
    return top + lines.reduce((n, l) => n + s.size * s.leading + (l.paragraphStart ? s.size * s.leading * 0.45 : 0), 0);
  }

  /** Lines set in a column: returns the y below the last line. */
  function drawBlock(lines: Line[], s: TextStyle, box: { x: number; w: number }, top: number, align: 'left' | 'center', colour: string, onLine?: (baseline: number) => void): number {
    const pitch = s.size * s.leading;
    let at = top;
    for (const line of lines) {
      if (line.paragraphStart) at += pitch * 0.45;
      drawLine(line, lineX(line, box, align), at + baselineOffset(s), s, colour);
      onLine?.(at + baselineOffset(s));
      at += pitch;
    }
    return at;
  }

  // ---- cover, and its verso ----

  /** The theme's cover (the same as the front of a printed book's cover wrap); a title page in a book going to print, whose cover is the wrap. */
  async function cover() {
    newPage('cover');
    const panel: Panel = { trim: g.trimmed(), bleed: { top: g.bleed, right: g.bleed, bottom: g.bleed, left: g.bleed } };
    let photo: PreparedPicture | null = null;
    if (input.coverPicture && !input.printReady) {
      const copy = await openOrSkip(input.coverPicture);
      if (copy) {
        try {
          photo = await prepareCroppedPicture(copy, coverPhotoBox(style.theme, panel), p.background, input.coverFocal ?? undefined);
        } finally {
          await copy.release();
        }
        if (!photo) input.onPictureSkipped?.(input.coverPicture, 'not a picture that can be decoded');
      }
    }
    drawFrontCover({ doc, style, title: input.title, subtitle: input.subtitle, memoryCount: input.memoryCount, faces, fallbacks, fallbacksFor, measure, words: bookText }, panel, photo);
  }

  function coverVerso() {
    newPage('verso');
    const t = g.trimmed();
    const small: TextStyle = { face: faces.body, fallbacks: fallbacks.body, size: smallest(8.5), leading: 1.5 };
    const made = bookText.madeWith(input.now ?? new Date(), true);
    drawCentredLine(input.title, small, t.x + t.w / 2, t.y + t.h - mm(40), smallColour, t.w - mm(60));
    drawCentredLine(made, small, t.x + t.w / 2, t.y + t.h - mm(34), smallColour, t.w - mm(60));
    if (input.memoryCount >= CONTENTS_MIN_MEMORIES) {
      // A long book's contents are set here, facing its first page of memories. PDFKit writes a page out when
      // the next begins: this one is kept back until its page numbers are known (see contentsPage).
      input.trace?.page?.(pageNo, 'contents');
      contentsHeld = { page: kit()._pageBuffer.pop(), n: pageNo };
    }
  }

  /** PDFKit's pages not yet written out, and the page being drawn on. */
  const kit = () => doc as unknown as { _pageBuffer: unknown[]; page: unknown };
  let contentsHeld: { page: unknown; n: number } | null = null;
  /** The months' chapters, each with its page (the contents list them with every contributor, see contentsEntries). */
  const chapters: ContentsEntry[] = [];
  /** The contributors' index at the end, once it has its page. */
  let indexEntry: ContentsEntry | null = null;

  /** The contents, drawn on the page kept back for them once the book is set: entries with their pages, in one or two columns. */
  function contentsPage() {
    if (!contentsHeld) return;
    const current = kit().page;
    kit().page = contentsHeld.page;
    const n = contentsHeld.n;
    inkFor('contents');
    content = g.content(n);
    const headStyle: TextStyle = { face: faces.title, fallbacks: fallbacks.title, size: look.quoteSize + 7, leading: 1.2 };
    const entryStyle: TextStyle = { face: faces.body, fallbacks: fallbacks.body, size: smallest(Math.max(9.5, look.captionSize + 0.5)), leading: 1.6, features: LINING_FIGURES };
    const contents = contentsEntries(chapters, contributors, japaneseNames, indexEntry);
    const column = gridOn(n).column;
    const top = content.y + headStyle.size * 1.2 + mm(10);
    // Above the title and imprint at the foot of the page; set smaller (to 7.5 pt) rather than run over two columns.
    const foot = g.trimmed().y + g.trim - mm(52);
    const fitting = Math.floor((foot - top) / (entryStyle.size * entryStyle.leading));
    if (contents.length > 2 * fitting) entryStyle.size = Math.max(smallest(7.5), (entryStyle.size * 2 * fitting) / contents.length);
    const pitch = entryStyle.size * entryStyle.leading;
    const rows = Math.max(1, Math.floor((foot - top) / pitch));
    const cols = contents.length > rows ? 2 : 1;
    const gap = mm(8);
    const colW = cols === 1 ? Math.min(column.w, mm(110)) : (content.w - gap) / 2;
    const left = cols === 1 ? (look.align === 'center' ? content.x + (content.w - colW) / 2 : column.x) : content.x;
    const chaptered = contents.some((e) => e.chapter && e.label !== bookText.withLoveFrom);
    const [hl] = breakLines(measure, bookText.contents, headStyle, colW);
    drawLine(hl, look.align === 'center' && cols === 1 ? left + (colW - hl.width) / 2 : left, content.y + headStyle.size, headStyle, p.accent);
    contents.slice(0, rows * cols).forEach((e, i) => {
      const x = left + Math.floor(i / rows) * (colW + gap);
      const at = top + (i % rows) * pitch + baselineOffset(entryStyle);
      const s = { ...entryStyle, fallbacks: fallbacksFor(e.japanese).body };
      const [num] = breakLines(measure, String(e.page), s, colW);
      const [label] = breakLines(measure, e.label.replace(/\s+/g, ' '), s, Number.MAX_SAFE_INTEGER);
      const fits = label.width <= colW - num.width - mm(6);
      const shown = fits ? label : breakLines(measure, e.label.replace(/\s+/g, ' '), { ...s, size: Math.max(6, (s.size * (colW - num.width - mm(6))) / label.width) }, Number.MAX_SAFE_INTEGER)[0];
      drawLine(shown, x + (e.chapter || !chaptered ? 0 : mm(4)), at, fits ? s : { ...s, size: Math.max(6, (s.size * (colW - num.width - mm(6))) / label.width) }, e.chapter ? p.accent : p.text);
      drawLine(num, x + colW - num.width, at, s, smallColour);
    });
    kit()._pageBuffer.push(contentsHeld.page);
    kit().page = current;
    contentsHeld = null;
  }

  // ---- the memories ----

  const quoteStyle = (pinned: boolean): TextStyle => ({
    face: faces.quote,
    fallbacks: fallbacks.quote,
    size: look.quoteSize + (pinned ? 1.5 : 0),
    leading: look.leading,
  });
  const longStyle: Omit<TextStyle, 'fallbacks'> = { face: faces.text, size: look.longSize, leading: look.longLeading };
  /**
   * The theme's measure for a long memory: so many of its characters (graphemes), at their average width in the
   * faces that set them (a Greek or Arabic letter in its fallback face is not as wide as a Latin one), read from
   * its opening once rather than line by line.
   */
  function longMeasureWidth(text: string, s: TextStyle): number {
    const sample = normalizeText(text).slice(0, 400);
    const width = runsOf(measure, sample, s).reduce((n, r) => n + r.width, 0);
    let count = 0;
    for (const _ of graphemes.segment(sample)) count++;
    return (look.longMeasure * width) / Math.max(1, count);
  }
  const bookSignatureStyle: TextStyle = { face: faces.body, fallbacks: fallbacks.body, size: smallest(look.captionSize), leading: 1.45, characterSpacing: look.captionCaps ? 0.9 : 0, features: LINING_FIGURES };
  /** A journal's entry heading: the day it was written. */
  const dateStyle: TextStyle = { face: faces.title, fallbacks: fallbacks.title, size: look.quoteSize + 3, leading: 1.2, features: LINING_FIGURES };
  const barIndent = look.quoteMark === 'bar' ? BAR_INDENT : 0;

  /** The most of a page a memory's photos take, so its words can start below them. */
  const PHOTO_SHARE = look.photoShare;

  function pictureBox(cell: { w: number; h: number }) {
    const [top, right, bottom, left] = mountPadding(look.mount);
    return { w: cell.w - left - right, h: cell.h - top - bottom };
  }

  let running = 0;
  const waiting: (() => void)[] = [];
  async function limited<T>(fn: () => Promise<T>): Promise<T> {
    while (running >= PREPARE_CONCURRENCY) await new Promise<void>((r) => waiting.push(r));
    running++;
    try {
      return await fn();
    } finally {
      running--;
      waiting.shift()?.();
    }
  }

  /** A QR code (black on a white square, whatever the page colour: phones read that best), linked as well on screen. */
  function drawQr(url: string, x: number, top: number) {
    const qr = QRCode.create(url, { errorCorrectionLevel: 'M' });
    const n = qr.modules.size;
    const quiet = 2;
    const cell = QR_SIZE / (n + 2 * quiet);
    doc.save().rect(x, top, QR_SIZE, QR_SIZE).fill('#FFFFFF');
    doc.fillColor('#000000');
    for (let r = 0; r < n; r++) {
      // One rectangle per run of dark modules along a row.
      for (let c = 0; c < n; ) {
        if (!qr.modules.get(r, c)) {
          c++;
          continue;
        }
        let end = c;
        while (end < n && qr.modules.get(r, end)) end++;
        doc.rect(x + (quiet + c) * cell, top + (quiet + r) * cell, (end - c) * cell + 0.05, cell + 0.05);
        c = end;
      }
    }
    doc.fill();
    doc.restore();
    // A link helps a reader of the PDF on screen; a print file carries none (a PDF/X preflight refuses annotations on the page).
    if (!input.printReady) doc.link(x, top, QR_SIZE, QR_SIZE, url);
  }

  /** A photo prepared for a page of its own: bled off every edge (`plate`), across an album page's width (`across`), off the edges it reaches (`edge`), or none. */
  type PagePicture = Placed & { plate: boolean; across: boolean; /** Bled off the edges its pixels reach (see pages/edge-bleed.ts). */ edge?: EdgeBleed | null };
  type Placed = PreparedPicture & { ppi: number; kind: PdfPicture['kind']; cell: Cell; key: string; /** Where the picture sits in its cell when it was made smaller than it (points). */ dx: number; dy: number };
  interface Block {
    pictures: Placed[];
    height: number;
    /** A gallery plate: the memory's one photo, prepared for the whole page and its bleed. */
    bleed?: PreparedPicture;
    /** The memory's one photo goes beside its words (see pages/beside.ts): its box's width and height, mount included (height is then 0). */
    beside?: { w: number; h: number };
    /** An album's one photo prepared for a page of its own (see spreadPhotoPage), as large as that page lets it print. */
    album?: PagePicture;
  }
  interface Ready {
    memory: PdfMemory;
    /** Its photos beyond the theme's inlinePhotos: each comes later as a breather. */
    held: PdfPicture[];
    /** Its plate, in a catalogue theme (see pages/catalogue.ts): its first photo, on the recto facing its words. */
    plate?: PdfPicture | null;
    /** It is the book's last memory (none follows to share its page). */
    last?: boolean;
    /** Pictures it counts as in the look-ahead: a possible plate as three (a whole page, bled, holds two to three times a print's pixels). */
    weight?: number;
    /** The photo block: its pictures cropped to their cells, and its height. */
    block: Promise<Block>;
  }

  async function openOrSkip(key: string) {
    input.signal?.throwIfAborted();
    try {
      return await input.openPicture(key);
    } catch (err) {
      if (input.isMissing?.(err)) {
        input.onPictureSkipped?.(key, 'gone from the store');
        return null;
      }
      throw err;
    }
  }

  /**
   * How many memories that could have been gallery plates (one photo) came since the last plate: a plate, then at
   * least three matted prints, so a gallery keeps its rhythm (and the file its size). Settled in book order,
   * whatever order pictures are prepared in.
   */
  const PRINTS_BETWEEN_PLATES = 3;
  let sinceLastPlate: Promise<number> = Promise.resolve(PRINTS_BETWEEN_PLATES);

  type Copy = { pic: PdfPicture; copy: { path: string; release(): Promise<void> }; aspect: number };
  /** The pictures' stored copies opened (into `copies`, to be released by the caller), those gone or undecodable left out. */
  async function openCopies(pictures: PdfPicture[], copies: Copy[]) {
    for (const pic of pictures) {
      const copy = await openOrSkip(pic.key);
      if (!copy) continue;
      const aspect = await aspectOf(copy.path);
      if (!aspect) {
        input.onPictureSkipped?.(pic.key, 'not a picture that can be decoded');
        await copy.release();
        continue;
      }
      copies.push({ pic, copy, aspect });
    }
  }

  /**
   * A photo's box on the Swiss grid's fixed widths (gridWidths, see swiss-grid.ts gridBox): widened and cropped
   * to the nearer when that keeps its subject and 200 ppi, else narrowed; as it is in other themes, or beside words.
   */
  async function onGridWidth(box: { w: number; h: number }, aside: boolean, photo: PhotoFile, size: { w: number; h: number } | null): Promise<{ w: number; h: number }> {
    if (!look.gridWidths || aside || !size) return box;
    const grid = gridOn(1);
    // (Its stored subject when its media row has one: a processed photo is not looked at again.)
    const subject = (await subjectOfPhoto(photo)).box;
    const aspect = size.w / size.h;
    // Cropped to a wider shape, the photo keeps its whole width.
    return gridBox(box, grid.photos, grid.column, barIndent, size.w, MIN_PRINT_PPI, (cell) => cell <= aspect || holdsSubject(aspect, subject, cell));
  }

  /** A memory's photo block: its pictures cropped to their cells in the theme's photo box. */
  async function layBlock(copies: Copy[], beside = false): Promise<Block> {
    const { photos: box, live } = gridOn(1);
    // Beside its words a photo takes the theme's share of the live area's width, and no more than 40% of its height.
    const layout = beside && copies.length === 1 ? photoLayout([copies[0].aspect], live.w * look.photoBeside, live.h * 0.4, PHOTO_GAP) : photoLayout(copies.map((c) => c.aspect), box.w, live.h * PHOTO_SHARE, PHOTO_GAP);
    const pictures: Placed[] = [];
    for (const [i, { pic, copy, aspect }] of copies.entries()) {
      const cell = await cellForPhoto(copy, layout.cells[i], aspect);
      // A photo without the pixels to fill its cell at MIN_PRINT_PPI gets a smaller one, centred where the cell was.
      const mounted = pictureBox(cell);
      // A mount deeper at its foot (a print's white border) must not make a portrait's upright cell a landscape picture.
      const full = aspect < 1 && mounted.w > mounted.h ? { w: mounted.h, h: mounted.h } : mounted;
      const size = await uprightSize(copy.path);
      const box = await onGridWidth(size ? cellAtLeast(size, full, MIN_PRINT_PPI) : full, beside, copy, size);
      const ready = await prepareCroppedPicture(copy, box, p.background);
      if (!ready) {
        input.onPictureSkipped?.(pic.key, 'not a picture that can be decoded');
        continue;
      }
      pictures.push({ ...ready, kind: pic.kind, cell, key: pic.key, dx: (mounted.w - box.w) / 2, dy: (mounted.h - box.h) / 2 });
    }
    if (beside && pictures.length === 1) {
      // (Its cell from the block's left: a portrait's is centred in the share, the box is the cell itself.)
      const cell = pictures[0].cell;
      pictures[0].cell = { ...cell, x: 0, y: 0 };
      return { pictures, height: 0, beside: { w: cell.w, h: cell.h } };
    }
    return { pictures, height: pictures.length ? layout.height : 0 };
  }

  /** A catalogue memory opening on a recto: its plate goes with its words as its first print (see placeMemory). */
  async function plateInline(plate: PdfPicture, others: PdfPicture[]): Promise<Block> {
    const copies: Copy[] = [];
    try {
      await openCopies([plate, ...others], copies);
      return await layBlock(copies);
    } finally {
      for (const c of copies) await c.copy.release();
    }
  }

  function prepare(source: PdfMemory): Ready {
    // The photos the theme shows with the words (videos always), the rest held for breathers. Of two, one large
    // photo goes with the words and the other alone on the page after, rather than two small side by side
    // (but for prints taped or framed as polaroids: a scrapbook's pairs).
    const { plate, others } = splitPlate(look, source.pictures);
    const photoCount = others.filter((x) => x.kind === 'photo').length;
    const scrapbook = look.mount === 'tape' || look.mount === 'polaroid';
    // A short entry's photo taped beside its words (see pages/beside.ts): one shown there, a second held for its own page.
    const beside = besideApplies(look.photoBeside, normalizeText(smartPunctuation(source.text)).length, LONG_TEXT_CHARS, source.pictures);
    const shown = beside || (photoCount === 2 && !scrapbook && !plate) ? 1 : look.inlinePhotos;
    const [inline, held]: PdfPicture[][] = [[], []];
    for (const pic of others) {
      if (pic.kind === 'photo' && inline.filter((x) => x.kind === 'photo').length >= shown) held.push(pic);
      else inline.push(pic);
    }
    const memory = { ...source, pictures: inline };
    if (!memory.pictures.length) return { memory, held, plate, block: Promise.resolve({ pictures: [], height: 0 }) };
    type Settle = (plate: boolean) => void;
    let settle: Settle | null = null;
    const previous = sinceLastPlate;
    if (look.fullBleed && memory.pictures.length === 1 && memory.pictures[0].kind === 'photo') {
      sinceLastPlate = new Promise<number>((resolve) => {
        settle = (plate) => void previous.then((n) => resolve(plate ? 0 : n + 1));
      });
    }
    const block = limited(async (): Promise<Block> => {
      const copies: Copy[] = [];
      try {
        await openCopies(memory.pictures, copies);
        if (settle && copies.length === 1) {
          // A plate only when the photo prints sharp across the whole page.
          const size = await uprightSize(copies[0].copy.path);
          const plate = !!size && Math.min(size.w, size.h) >= (g.page / 72) * MIN_PRINT_PPI && (await previous) >= PRINTS_BETWEEN_PLATES;
          const bleed = plate ? await prepareCroppedPicture(copies[0].copy, { w: g.page, h: g.page }, p.background) : null;
          (settle as Settle)(!!bleed);
          if (bleed) return { pictures: [], height: 0, bleed };
        }
        const laid = await layBlock(copies, beside);
        // An album's one photo, should it get a page of its own facing its words: prepared for that page too.
        if (look.photoSpread && copies.length === 1 && laid.pictures.length === 1) laid.album = (await pagePicture(copies[0].copy, copies[0].pic.key, undefined, false)) ?? undefined;
        return laid;
      } finally {
        (settle as Settle | null)?.(false); // a photo gone or unreadable is no plate (a settled promise ignores this)
        for (const c of copies) await c.copy.release();
      }
    });
    block.catch(() => {}); // awaited when placed; a render that stops early must not leave it unhandled
    return { memory, held, plate, block, weight: settle ? 3 : undefined };
  }

  /** The memories with their pictures prepared a few ahead of the one being placed. */
  /** Memories prepared and still to come (the look-ahead's queue): the nearest may lend a held photo to a run of words before it (see pacing.ts). */
  const upcoming: Ready[] = [];
  async function* ahead(source: AsyncIterable<PdfMemory>): AsyncGenerator<Ready> {
    const queue = upcoming;
    const it = source[Symbol.asyncIterator]();
    let exhausted = false;
    const queued = () => queue.reduce((n, r) => n + (r.weight ?? r.memory.pictures.length), 0);
    for (;;) {
      while (!exhausted && (queue.length === 0 || (queued() < LOOKAHEAD_PICTURES && queue.length < 32))) {
        const next = await it.next();
        if (next.done) exhausted = true;
        else queue.push(prepare(next.value));
      }
      const ready = queue.shift();
      if (!ready) return;
      if (!queue.length && !exhausted) {
        const next = await it.next();
        if (next.done) exhausted = true;
        else queue.push(prepare(next.value));
      }
      ready.last = exhausted && !queue.length;
      yield ready;
    }
  }

  const room = () => content.y + content.h - y;
  const atTop = () => y <= content.y + 0.5;

  /** Draws a picture in the theme's mount; `memory` false for the closing photo (not one of the memories' pictures). */
  function placePicture(pic: Placed, x: number, top: number, memory = true, mat = 12) {
    pagePictured = pagePhoto = true;
    const { width: w, height: h } = pic;
    // A print taped in by hand sits a little askew, one way then the other (see photoTilt).
    tilted++;
    if (look.photoTilt) doc.save().rotate(tilted % 2 ? -look.photoTilt : look.photoTilt, { origin: [x + w / 2, top + h / 2] });
    switch (look.mount) {
      case 'border':
        doc.save().lineWidth(0.6).strokeColor(p.accent).rect(x - 5, top - 5, w + 10, h + 10).stroke().restore();
        break;
      case 'polaroid':
      case 'tape':
        doc.save().fillOpacity(0.14).rect(x - 6, top - 5, w + 16, h + 32).fill('#000000').restore();
        doc.save().rect(x - 8, top - 8, w + 16, h + 32).fill('#FFFFFF').restore();
        break;
      case 'tipped':
        // The print on its own sheet, a little lighter than the page, casting a soft shadow.
        doc.save().fillOpacity(0.18).rect(x - 3.5, top - 3, w + 9, h + 10).fill('#000000').restore();
        doc.save().rect(x - 5, top - 5, w + 10, h + 10).fill('#FFFDF6').restore();
        break;
      case 'mat':
        doc.save().fillOpacity(0.6).rect(x - mat, top - mat, w + 2 * mat, h + 2 * mat).fill('#FFFFFF').restore();
        doc.save().lineWidth(0.5).strokeColor(p.accent).rect(x - mat, top - mat, w + 2 * mat, h + 2 * mat).stroke().rect(x - 1.5, top - 1.5, w + 3, h + 3).stroke().restore();
        break;
      default:
        break;
    }
    if (look.mount === 'rounded') {
      doc.save().roundedRect(x, top, w, h, Math.min(14, w / 8)).clip();
      doc.image(pic.jpeg, x, top, { width: w, height: h });
      doc.restore();
    } else {
      doc.image(pic.jpeg, x, top, { width: w, height: h });
    }
    if (look.mount === 'tipped') drawPhotoCorners(doc, { x: x - 5, y: top - 5, w: w + 10, h: h + 10 }, p.accent);
    if (look.mount === 'tape') {
      for (const [tx, angle] of [
        [x + 4, -9],
        [x + w - 40, 8],
      ] as const) {
        doc.save().rotate(angle, { origin: [tx + 18, top - 6] }).fillOpacity(0.45).rect(tx, top - 13, 38, 14).fill(p.accent).restore();
      }
    }
    if (look.photoTilt) doc.restore();
    // The image's data went to the document: let go of it.
    pic.jpeg = Buffer.alloc(0);
    if (memory) pictureCount++;
  }

  const lowResolution: { key: string; ppi: number }[] = [];
  /** Prints placed so far (the way the next one tilts). */
  let tilted = 0;
  let pinnedPicture: string | null = null;
  let backQuote: BackText['quote'] = null;
  const endQuotes: NonNullable<BackText['quote']>[] = [];
  let dates: BackText['dates'] = null;
  let firstPicture: string | null = null;
  /** Every contributor named in the book, with the pages their memories open on (the index at the end). */
  const contributors = new Map<string, number[]>();
  /** Names written in Japanese (their kanji take the Japanese face, as in their memories). */
  const japaneseNames = new Set<string>();
  function contributed(name: string, page: number, japanese: boolean) {
    const pages = contributors.get(name) ?? [];
    if (pages.at(-1) !== page) pages.push(page);
    contributors.set(name, pages);
    if (japanese) japaneseNames.add(name);
  }
  /** Photos held back from the memory just placed (beyond what the theme shows with the words), to come right after it as breathers. */
  const held: HeldPhoto[] = [];
  /** Whether the page being set is a memory page just begun, with nothing on it yet. */
  const freshPage = () => decorateDue === pageNo && atTop() && !groups.some((gr) => gr.ops.length);

  type Breather = { photo: PagePicture; h: HeldPhoto };
  /** Held photos prepared, a page each (one large, or two one above the other), printed at the next turn of a page. */
  const due: { photos: Breather[]; pair: boolean; /** A catalogue's plate: drawn only on a recto. */ recto?: boolean; /** An album's or a catalogue's pair of portraits side by side at one height: their shapes. */ row?: number[] }[] = [];
  /** The book's reserve of breathers (see pacing.ts): held photos prepared a page each, for the runs of words that need one. */
  const reserve: (typeof due)[number][] = [];
  /** Held photos into the reserve, captioned with whose photos they are (they print away from their memory): a page each, a catalogue's on rectos. */
  async function toReserve(photos: HeldPhoto[], signature: string | null) {
    const caption = signature?.trim() ? bookText.fromPhotos(signature.trim()) : '';
    const pages = await heldPages(photos.map((h) => ({ ...h, caption })), { singles: true });
    reserve.push(...pages.map((page) => ({ ...page, recto: look.plates === 'recto' })));
  }
  /** A memory about to make a long run of words with no photo at hand: the nearest memory still to come lends the last photo it holds back. */
  async function borrowBreather(): Promise<boolean> {
    const lender = upcoming.find((r) => r.held.length);
    if (!lender) return false;
    const pic = lender.held.pop()!;
    const japanese = bookIsJapanese || isJapanese(lender.memory.text, lender.memory.signature);
    await toReserve([{ key: pic.key, memoryId: lender.memory.id, caption: '', japanese }], lender.memory.signature);
    return true;
  }
  /** The half of page n's live area a photo of a two-photo page takes (0 above, 1 below). */
  const halfSlot = (i: number, n: number, row?: number[]): Box => {
    // (An album's pair on its mat, one over the other in its window, or side by side at one height when both are
    // portraits, each as wide as its shape asks (a catalogue's too, in the live area); one caption under both: see drawDuePage.)
    const live = pairWindow(n) ?? gridOn(n).live;
    if (row) {
      const h = Math.min(live.h, (live.w - mm(4)) / (row[0] + row[1]));
      const x = live.x + (live.w - mm(4) - h * (row[0] + row[1])) / 2 + (i ? h * row[0] + mm(4) : 0);
      return { x, y: live.y + (live.h - h) * 0.45, w: h * row[i], h };
    }
    // A Swiss grid's pair hangs in the breather's box (from the text column's line), one over the other.
    const across = look.photoHang ? gridOn(n).breather : live;
    return { x: across.x, y: live.y + i * (live.h / 2 + mm(2)), w: across.w, h: live.h / 2 - mm(2) };
  };

  /** An album's or a catalogue's pair of prints share one caption, under both (they are one memory's). */
  const sharedPairCaption = look.photoSpread || look.plates === 'recto';
  /**
   * The window a pair of prints sharing a caption takes on page n (an album's on its mat, a catalogue's the live
   * area), less a line under them for that caption; null where each has its own.
   */
  const pairWindow = (n: number): Box | null => {
    if (!sharedPairCaption) return null;
    const w = look.photoSpread ? albumWindow(albumMat(g.trimmed(), mm(ALBUM_MAT_INSET_MM))) : gridOn(n).live;
    return { ...w, h: w.h - PAIR_CAPTION };
  };
  /** The line under a pair of prints that carries their one caption, points. */
  const PAIR_CAPTION = mm(9);

  /** The held photos prepared for their pages (see breatherPages), in the order they were held. */
  async function prepareHeld() {
    while (held.length) {
      const memoryId = held[0].memoryId;
      const count = held.findIndex((h) => h.memoryId !== memoryId);
      due.push(...(await heldPages(held.splice(0, count < 0 ? held.length : count))));
    }
  }

  /** One memory's held photos prepared, a page each or in pairs (see heldPageSizes). */
  async function heldPages(mine: HeldPhoto[], opts: { carried?: boolean; plate?: boolean; singles?: boolean } = {}): Promise<(typeof due)[number][]> {
    const pages: (typeof due)[number][] = [];
    // (An album, and a memorial of one memory a page, give each its own page: through a long letter, or one or two after a memory, within two pages of it.)
    const single = opts.plate || opts.singles || ((look.photoSpread || look.onePerPage) && (opts.carried || mine.length <= 2));
    // (A catalogue's plate is a page of its own; the photos after it go in pairs, so they follow it closely.)
    for (const size of single ? mine.map(() => 1) : look.plates === 'recto' ? afterPlatePages(mine.length) : heldPageSizes(mine.length, look.breatherPairs, !!opts.carried)) {
      const page = mine.splice(0, size);
      const pair = size === 2;
      // (An album's or a catalogue's pair of portraits goes side by side, larger than one over the other; any other pair one over the other.)
      const shapes = pair && (look.photoSpread || look.plates === 'recto') ? (await Promise.all(page.map((h) => aspectOfKey(h.key)))).map((a) => Math.min(1.5, Math.max(0.8, a ?? 1.5))) : null;
      const row = shapes && shapes.every((a) => a < 1) ? shapes : undefined;
      const photos = await Promise.all(page.map((h, i) => breatherPicture(h.key, pair ? halfSlot(row ? i : 0, pageNo + 1, row) : undefined)));
      const ready = page.flatMap((h, i) => (photos[i] ? [{ photo: photos[i]!, h }] : []));
      if (ready.length) pages.push({ photos: ready, pair, recto: !!opts.plate, row: ready.length === 2 ? row : undefined });
    }
    return pages;
  }

  /** A long memory's held photo pages, to come through its pages of words: the next after every so many (see photoInterval). */
  let spread: { pages: (typeof due)[number][]; every: number; from: number } | null = null;
  /** The long memory being set, for a quote page that breaks a run of words: its design, and the sentences not yet set so. */
  let reading: { design: Omit<QuoteDesign, 'text'>; sentences: string[] } | null = null;

  /** A quote page of the next sentence of the memory being read, on a page of its own; false when there is none to set. */
  function pacingQuote(): boolean {
    if (!quotePageAllowed(pageNo + 1, lastQuotePage, look.quoteEvery)) return false;
    const text = reading?.sentences.shift();
    if (!reading || !text) return false;
    const n = newPage('quote');
    content = g.content(n);
    decorateDue = n;
    decorate();
    quotePage({ ...reading.design, text, pulled: true });
    return true;
  }

  /** Drawn pictures set so far (each page turns to the next scene). */
  let scenesDrawn = 0;
  /**
   * A picture book's drawn picture page breaking a run of its words (see pages/illustration.ts): the scene over a
   * line of the letter being read, set large; false when a designed page would come too soon after the last.
   */
  function illustrationPage(): boolean {
    if (!reading || !quotePageAllowed(pageNo + 1, lastQuotePage, look.quoteEvery)) return false;
    const text = reading.sentences.shift();
    const n = newPage('quote');
    content = g.content(n);
    decorateDue = n;
    decorate();
    const scene = { x: content.x, y: content.y, w: content.w, h: content.h * (text ? SCENE_SHARE : 1) };
    // (A theme that tapes its prints in tapes its drawn pictures in too, askew as they are.)
    const taped = look.mount === 'tape' ? { tilt: scenesDrawn % 2 ? -look.photoTilt : look.photoTilt } : undefined;
    drawScene(doc, taped ? { x: scene.x + mm(6), y: scene.y + mm(6), w: scene.w - mm(12), h: scene.h - mm(6) } : scene, scenesDrawn++, p, taped);
    input.trace?.illustration?.(n);
    [pagePictured, lastQuotePage] = [true, n];
    if (text) {
      const page = content;
      content = { ...content, y: scene.y + scene.h + mm(6), h: content.h - scene.h - mm(6) };
      quotePage({ ...reading.design, text, pulled: true });
      content = page;
    }
    return true;
  }

  /** A page of held photos, on a new page or the memory page just begun: one large, or two in the halves of the live area. */
  function drawDuePage(page: (typeof due)[number], onCurrent: boolean) {
    if (!onCurrent) content = g.content(newPage('breather'));
    decorateDue = null;
    if (!page.pair) return drawBreather(page.photos[0].photo, page.photos[0].h);
    input.trace?.page?.(pageNo, 'breather');
    if (look.photoSpread) drawAlbumMat();
    page.photos.forEach((b, i) => drawBreather(b.photo, b.h, halfSlot(i, pageNo, page.row)));
    if (!look.photoSpread) folio(pageNo);
    const w = pairWindow(pageNo);
    if (!w) return;
    // One caption under both prints (they are one memory's): close under a row; under a pair one over the other, on the window's last line.
    const [{ h }] = page.photos;
    const under = page.row ? halfSlot(0, pageNo, page.row) : w;
    drawCentredLine(look.captionCaps ? h.caption.toUpperCase() : h.caption, heldCaptionStyle(h.japanese), w.x + w.w / 2, under.y + under.h + PAIR_CAPTION * 0.7, smallColour, w.w);
  }

  /**
   * Between memories: the photos the memory before held back are prepared; the memory page just begun
   * (nothing on it yet) becomes the first of their pages, else they come at the next turn of a page.
   */
  async function breathe() {
    await prepareHeld();
    if (!due.length || !freshPage() || !mayDrawOn(due[0], pageNo)) return;
    drawDuePage(due.shift()!, true);
    memoryPage();
  }

  /** The width over the height of a stored photo, as seen (null when it is gone or undecodable). */
  async function aspectOfKey(key: string): Promise<number | null> {
    const copy = await openOrSkip(key);
    if (!copy) return null;
    try {
      return await aspectOf(copy.path);
    } finally {
      await copy.release();
    }
  }

  /** A held photo, prepared for a breather: the whole page and its bleed when the theme bleeds them and it is sharp enough, else the breather's box. */
  async function breatherPicture(key: string, slot?: Box): Promise<PagePicture | null> {
    const copy = await openOrSkip(key);
    if (!copy) return null;
    try {
      return await pagePicture(copy, key, slot);
    } finally {
      await copy.release();
    }
  }

  /**
   * A photo prepared for a page of its own (or a slot of one): bled off every edge when the theme bleeds them and
   * it is sharp enough; an album's bled across the page's width when it is wide enough (see pages/album-spread.ts);
   * else in the breather's box (an album's on its mat, a catalogue's plate as large as its mat allows).
   */
  async function pagePicture(copy: PhotoFile, key: string, slot?: Box, captioned = true): Promise<PagePicture | null> {
    const size = await uprightSize(copy.path);
    if (!size) {
      input.onPictureSkipped?.(key, 'not a picture that can be decoded');
      return null;
    }
    const plate = !slot && look.breather === 'plate' && Math.min(size.w, size.h) >= (g.page / 72) * MIN_PRINT_PPI;
    // (An album's pair shares one caption, under both: see drawDuePage.)
    // (An album's spread photo has none: its words face it.)
    const captionRoom = (slot && sharedPairCaption) || !captioned ? 0 : mm(16);
    // Its own shape within 4:5 and 3:2 (a panorama's or a tall photo's within 2:1 and 1:2 when that prints it larger: ownShapeIn),
    // unless that would cut its subject: then the shape that keeps it (as a memory's cell does).
    // (Its stored subject when its media row has one: a processed photo is not looked at again.)
    const subject = await subjectOfPhoto(copy);
    // Too small for the whole page, it may still bleed off the edges it reaches (see pages/edge-bleed.ts).
    const edge = !plate && !slot && look.bleedEdges ? edgeBleed(size, g.page, MIN_PRINT_PPI, subject.box) : null;
    if (edge) {
      const bled = await prepareCroppedPicture(copy, edge, p.background);
      if (bled) return { ...bled, kind: 'photo', key, cell: { x: 0, y: 0, w: edge.w, h: edge.h }, dx: 0, dy: 0, plate: false, across: false, edge };
    }
    const band = !slot && !plate && look.photoSpread ? bledAcross(size, g.page, MIN_PRINT_PPI) : null;
    const across = band && holdsSubject(size.w / size.h, subject.box, band.w / band.h) ? band : null;
    // (A plate theme's photo without the pixels for a plate: no taller than the live area, where drawBreather sets it, though its breather box is the page;
    // an album's is held by its mat's window instead, which singlePhotoRoom gives.)
    const room = slot ?? singlePhotoRoom(3);
    const area = !slot && !plate && look.breather === 'plate' && !look.photoSpread ? { ...room, h: Math.min(room.h, gridOn(3).live.h) } : room;
    const aspect = chooseCellShape(size.w / size.h, subject.box, [ownShapeIn(size, { w: area.w, h: area.h - captionRoom }, MIN_PRINT_PPI), ...OTHER_SHAPES]);
    const fit = plate ? { w: g.page, h: g.page } : across ? across : area.w / aspect <= area.h - captionRoom ? { w: area.w, h: area.w / aspect } : { w: (area.h - captionRoom) * aspect, h: area.h - captionRoom };
    const box = plate || across ? fit : await onGridWidth(cellAtLeast(size, pictureBox(fit), MIN_PRINT_PPI), false, copy, size);
    const ready = await prepareCroppedPicture(copy, box, p.background);
    if (!ready) {
      input.onPictureSkipped?.(key, 'not a picture that can be decoded');
      return null;
    }
    return { ...ready, kind: 'photo', key, cell: { x: 0, y: 0, w: fit.w, h: fit.h }, dx: 0, dy: 0, plate, across: !!across };
  }

  /**
   * The room a photo alone on page n takes, its mount and caption included: an album's window on its mat, a
   * catalogue's plate room less the mat beyond its mount (see pages/catalogue.ts), else the grid's breather box.
   */
  function singlePhotoRoom(n: number): Box {
    if (look.photoSpread) return albumWindow(albumMat(g.trimmed(), mm(ALBUM_MAT_INSET_MM)));
    if (look.plates === 'recto') {
      const room = plateRoom(g.trimmed(), g.gutter, g.isRecto(n));
      const deeper = PLATE_MAT - mountPadding(look.mount)[2];
      return { x: room.x + deeper, y: room.y + deeper, w: room.w - 2 * deeper, h: room.h - 2 * deeper };
    }
    return gridOn(n).breather;
  }

  /** A held photo's caption: small in the body face, or (a diary's, see datedEntries) written under it in the hand, larger. */
  function heldCaptionStyle(japanese: boolean): TextStyle {
    // (A picture book's in its display face, as written under a picture; a diary's in its hand.)
    if (look.handCaptions) return { face: faces.quote, fallbacks: fallbacksFor(japanese).quote, size: look.captionSize + 3.5, leading: 1.3, characterSpacing: look.captionCaps ? 0.6 : 0, features: LINING_FIGURES };
    const hand = look.datedEntries;
    return { face: hand ? faces.title : faces.body, fallbacks: (hand ? fallbacksFor(japanese).title : fallbacksFor(japanese).body), size: smallest(look.captionSize + (hand ? 3 : 0)), leading: 1.3, characterSpacing: look.captionCaps ? 0.6 : 0, features: LINING_FIGURES };
  }

  /** A breather on the page just begun: the photo alone, centred in the breather's box with its caption under it, or bled off the page with its caption on a band at the foot. */
  function drawBreather(photo: PagePicture, h: HeldPhoto, slot?: Box, /** It opens its memory (an album's spread): traced as the memory's picture. */ opening = false) {
    if (!slot) input.trace?.page?.(pageNo, photo.plate || photo.across || photo.edge ? 'plate' : 'breather');
    pagePictured = pagePhoto = true;
    const captionStyle = heldCaptionStyle(h.japanese);
    const caption = look.captionCaps ? h.caption.toUpperCase() : h.caption;
    if (photo.across) {
      // Off the top and both sides, its caption in the white under it, a little above the middle of what is left.
      const t = g.trimmed();
      drawBledAcross(photo);
      const under = t.y + t.h - photo.height;
      // (A size up from a print's caption: it is the page's only words.)
      const label = { ...captionStyle, size: captionStyle.size + 2 };
      drawCentredLine(caption, label, t.x + t.w / 2, photo.height + under * 0.42 + label.size * 0.35, p.text, t.w - mm(40));
    } else if (photo.edge && !slot) {
      const recto = g.isRecto(pageNo);
      const box = edgeBleedBox(photo.edge, g.page, recto);
      doc.image(photo.jpeg, box.x, box.y, { width: box.w, height: box.h });
      photo.jpeg = Buffer.alloc(0);
      // The caption flush left on the paper beside it: under a band at its head, at the foot beside a column.
      const under = edgeBleedCaptionBox(box, g.content(pageNo), recto, mm(6));
      // (A Swiss grid's caption under a band starts where its type does.)
      const type = gridOn(pageNo).column;
      const paper = look.photoHang && photo.edge.side === 'head' ? { ...under, x: type.x + barIndent, w: type.w - barIndent } : under;
      const lines = breakLines(measure, caption, captionStyle, paper.w);
      const lineH = captionStyle.size * captionStyle.leading;
      const top = photo.edge.side === 'head' ? paper.y : paper.y + paper.h - lines.length * lineH;
      drawBlock(lines, captionStyle, paper, top, 'left', smallColour);
    } else if (photo.plate) {
      doc.image(photo.jpeg, 0, 0, { width: g.page, height: g.page });
      photo.jpeg = Buffer.alloc(0);
      const t = g.trimmed();
      const band = mm(11);
      doc.save().fillOpacity(0.55).rect(0, t.y + t.h - band, g.page, band + g.bleed).fill('#000000').restore();
      drawCentredLine(caption, { ...captionStyle, fallbacks: captionStyle.fallbacks }, t.x + t.w / 2, t.y + t.h - band / 2 + captionStyle.size * 0.35, '#FFFFFF', t.w - mm(30));
    } else {
      if (look.photoSpread && !slot) drawAlbumMat();
      const grid = gridOn(pageNo);
      const area = slot ?? singlePhotoRoom(pageNo);
      const [top, right, bottom, left] = mountPadding(look.mount);
      const [w, hh] = [photo.width + left + right, photo.height + top + bottom];
      const x = (look.photoHang ? hangingX(area, grid.column, w, barIndent) : area.x + (area.w - w) / 2) + left;
      // The photo and its caption a little above the middle of its area (its optical centre).
      const band = slot ?? (look.plates === 'recto' ? plateRoom(g.trimmed(), g.gutter, g.isRecto(pageNo)) : look.photoSpread ? area : grid.live);
      // A catalogue's plate sits in a deeper mat (see pages/catalogue.ts).
      const deeper = look.plates === 'recto' && !slot ? PLATE_MAT - bottom : 0;
      const y0 = band.y + Math.max(0, (band.h - mm(12) - hh - 2 * deeper) * (slot ? 0.5 : 0.45)) + top + deeper;
      placePicture(photo, x, y0, false, bottom + deeper);
      if (look.photoHang) {
        // Flush left under the photo, on its line.
        const [line] = breakLines(measure, caption, captionStyle, Number.MAX_SAFE_INTEGER);
        const s = line && line.width > area.w ? { ...captionStyle, size: (captionStyle.size * area.w) / line.width } : captionStyle;
        const [fitted] = s === captionStyle ? [line] : breakLines(measure, caption, s, Number.MAX_SAFE_INTEGER);
        if (fitted) drawLine(fitted, x - left, y0 + photo.height + bottom + mm(7), s, smallColour);
      } else {
        // (A plate's caption a point larger, in the text colour: a museum label is read; a hand caption in ink too.)
        const label = deeper ? { ...captionStyle, size: captionStyle.size + 1 } : captionStyle;
        if (!(slot && sharedPairCaption)) drawCentredLine(caption, label, area.x + area.w / 2, y0 + photo.height + bottom + deeper + mm(look.handCaptions ? 10 : 8), deeper || look.handCaptions ? p.text : smallColour, area.w);
      }
      if (!slot && !look.photoSpread) folio(pageNo);
    }
    if (opening) input.trace?.picture?.(pageNo, h.memoryId);
    else if (h.memoryId) input.trace?.breather?.(pageNo, h.memoryId);
    // (The closing photo's page, with no memory, is not one of the memories' pictures.)
    if (h.memoryId) pictureCount++;
  }

  /**
   * The next held photo set below what is on the page (a page that would be left mostly empty), as large as
   * the room left lets it, with its caption; false when the room is too small for it to read as a breather.
   */
  async function breatherBelow(): Promise<boolean> {
    // (None due: one from the book's reserve of breathers, see pacing.ts, rather than a page left short; not in an
    // album, whose pages pair a memory's photo with its words.)
    const queue = due.length || look.photoSpread ? due : reserve;
    const next = queue[0];
    if (!next || next.pair || next.recto || next.photos[0].photo.plate || next.photos[0].photo.edge) return false;
    const { photo, h } = next.photos[0];
    const [top, right, bottom, left] = mountPadding(look.mount);
    const captionH = mm(12);
    const start = y + BETWEEN_MIN;
    const k = Math.min(1, (content.y + content.h - start - captionH - top - bottom) / photo.height, (look.photoHang ? gridOn(pageNo).photos : gridOn(pageNo).live).w / (photo.width + left + right));
    // (A photo from the reserve may be a little smaller: it is a vignette filling the page a tail leaves short.)
    if (photo.height * k < content.h * (queue === reserve ? 0.25 : 0.3)) return false;
    queue.shift();
    const scaled = k < 1 ? await resamplePicture(photo, k) : photo;
    const pic = { ...scaled, width: photo.width * k, height: photo.height * k };
    const captionStyle = heldCaptionStyle(h.japanese);
    const caption = look.captionCaps ? h.caption.toUpperCase() : h.caption;
    const live = gridOn(pageNo).live;
    // (A Swiss grid's hangs from the text column's line, its caption flush left under it.)
    const hang = look.photoHang ? gridOn(pageNo) : null;
    const [x, at, n] = [hang ? hangingX(hang.photos, hang.column, pic.width, barIndent) : live.x + (live.w - pic.width) / 2, start + top, pageNo];
    groups.push({ ops: [], top: start, bottom: start, continued: false, flowsOn: false, closed: false, quote: null });
    paint((dy) => {
      placePicture(pic, x, at + dy, false);
      if (hang) drawCentredLine(caption, captionStyle, x + Math.min(pic.width, breakLines(measure, caption, captionStyle, Number.MAX_SAFE_INTEGER)[0]?.width ?? 0) / 2, at + pic.height + bottom + mm(6) + dy, smallColour, pic.width);
      else drawCentredLine(caption, captionStyle, live.x + live.w / 2, at + pic.height + bottom + mm(6) + dy, smallColour, live.w);
      input.trace?.breather?.(n, h.memoryId);
    });
    if (photo !== scaled) photo.jpeg = Buffer.alloc(0);
    pictureCount++;
    y = at + pic.height + bottom + captionH;
    const group = groups.at(-1)!;
    group.bottom = y;
    group.closed = true;
    y += GAP * 1.6;
    return true;
  }

  /** The page an album's spread set its words on, to themselves: the next memory turns it (unless that leaves it mostly empty, or a quote page too soon). */
  let ownPage: number | null = null;

  /**
   * A month's chapter page (PdfLook.chapterPages): the month's number in the book large, its name and year under
   * it, between the theme's ornaments, on a page of its own; then a fresh page for its first memory. Returns its page.
   */
  function chapterPage(month: string, date: string, letterBefore: typeof reading): number {
    if (!freshPage()) {
      // A letter's last lines left alone on their page take a sentence of it, set large, first.
      if (pageShort()) tailPull(letterBefore);
      memoryPage();
    }
    const n = pageNo;
    decorateDue = null;
    pagePictured = true;
    input.trace?.page?.(n, 'quote');
    const cx = content.x + content.w / 2;
    const number: TextStyle = { face: faces.title, fallbacks: fallbacks.title, size: 150, leading: 1 };
    const name: TextStyle = { face: faces.title, fallbacks: fallbacks.title, size: look.quoteSize + 12, leading: 1.2 };
    const label: TextStyle = { ...bookSignatureStyle, size: smallest(look.captionSize + 1), characterSpacing: 1.5 };
    const mid = content.y + content.h * 0.46;
    const count = input.dates ? monthOfBook(input.dates.first, date) : null;
    look.ornament(doc, cx, mid - (count ? 150 : 40), 1.2, p);
    if (count) {
      drawCentredLine('MONTH', label, cx, mid - 110, smallColour, content.w);
      drawCentredLine(String(count), number, cx, mid + 10, p.accent, content.w);
    }
    drawCentredLine(month, name, cx, mid + (count ? 62 : 10), p.text, content.w);
    look.ornament(doc, cx, mid + (count ? 96 : 50), 1.2, p);
    folio(n);
    memoryPage();
    return n;
  }

  /** Whether the page being set holds only the tail of a memory begun overleaf. */
  function tailAlone(): boolean {
    const list = groups.filter((gr) => gr.ops.length);
    return list.length === 1 && list[0].continued && list[0].closed;
  }

  /**
   * Under a letter's tail alone at a page's head, what fills the page (see tailFill): the next held photo, else
   * the next sentence of the letter not yet set large, between two short rules, in the room left; false when
   * neither is at hand or fits.
   */
  async function fillUnderTail(letter: typeof reading): Promise<boolean> {
    if (await breatherBelow()) return true;
    const sentence = letter?.sentences[0];
    if (!letter || !sentence) return false;
    const text = look.quoteMark === 'glyph' ? `\u201C${sentence}\u201D` : sentence;
    const design = letter.design;
    const s: TextStyle = { ...design.style, size: design.style.size * 1.5, leading: 1.3 };
    const width = gridOn(pageNo).column.w * 0.8;
    const lines = evenLines(text, s, width);
    const start = y + BETWEEN_MIN;
    const height = lines.length * s.size * s.leading + mm(10);
    if (start + height > content.y + content.h) return false;
    letter.sentences.shift();
    const col = gridOn(pageNo).column;
    const box = { x: col.x + (col.w - width) / 2, w: width };
    const ruleW = Math.min(width, mm(24));
    groups.push({ ops: [], top: start, bottom: start + height, continued: false, flowsOn: false, closed: true, quote: null });
    paint((dy) => {
      const [rx, top] = [box.x + (box.w - ruleW) / 2, start + dy];
      doc.save().lineWidth(0.8).strokeColor(p.accent).moveTo(rx, top).lineTo(rx + ruleW, top).stroke();
      doc.moveTo(rx, top + height).lineTo(rx + ruleW, top + height).stroke().restore();
      drawBlock(lines, s, box, top + mm(5), 'center', p.text);
    });
    y = start + height + GAP * 1.6;
    return true;
  }

  /** A drawn picture (see illustrationPage) in the room under a letter's tail alone at a page's head, to the live area's foot. */
  function sceneUnderTail() {
    const start = y + BETWEEN_MIN;
    const col = gridOn(pageNo).column;
    const h = Math.min(content.y + content.h - start, col.w * 0.75);
    if (h < content.h * 0.3) return;
    const [n, index] = [pageNo, scenesDrawn++];
    groups.push({ ops: [], top: start, bottom: start + h, continued: false, flowsOn: false, closed: true, quote: null });
    const taped = look.mount === 'tape' ? { tilt: look.photoTilt } : undefined;
    paint((dy) => drawScene(doc, { x: col.x, y: start + dy, w: col.w, h }, index, p, taped));
    input.trace?.illustration?.(n);
    [pagePictured, y] = [true, start + h];
  }

  async function placeMemory(ready: Ready) {
    await breathe();
    if (ownPage === pageNo && !atTop() && !pageShort() && !quoteTooSoon()) memoryPage();
    ownPage = null;
    // The long letter before this memory, and the sentences of it not yet set large (see tailFill).
    const letter = reading;
    const { memory } = ready;
    const photo = memory.pictures.find((x) => x.kind === 'photo')?.key ?? null;
    firstPicture ??= photo;
    if (memory.pinned) pinnedPicture ??= photo;
    if (!dates) dates = { first: memory.date, last: memory.date };
    else if (memory.date < dates.first) dates.first = memory.date;
    else if (memory.date > dates.last) dates.last = memory.date;
    // The back cover quotes the first memory short enough to stand there (book order: pinned ones first).
    const plain = normalizeText(memory.text).replace(/\s+/g, ' ').trim();
    if (plain.length >= 20 && plain.length <= 160 && dominantScript(plain) === bookScript) {
      if (!backQuote) backQuote = { text: smartPunctuation(plain), signature: memory.signature };
      // Lines for the pages that fill the book before its ending: one from each contributor.
      else if (endQuotes.length < 4 && !endQuotes.some((q) => q.signature === memory.signature)) endQuotes.push({ text: smartPunctuation(plain), signature: memory.signature });
    }
    input.signal?.throwIfAborted();
    let block = await ready.block;
    // A catalogue's pictured memory that opens on a recto (where it cannot face its plate) shows its plate with its words.
    let ownPlate = ready.plate ?? null;
    if (ownPlate && g.isRecto(pageNo) && (atTop() || pageShort())) [block, ownPlate] = [await plateInline(ownPlate, memory.pictures), null];
    const text = smartPunctuation(memory.text);
    // Japanese writing takes the Japanese face before the Chinese one (its kanji in their Japanese forms).
    const japanese = bookIsJapanese || isJapanese(memory.text, memory.signature);
    const fb = fallbacksFor(japanese);
    const signatureStyle: TextStyle = { ...bookSignatureStyle, fallbacks: fb.body };
    // Long memories are read, not glanced at: set in the text face, justified and hyphenated in their language, rather than as display type.
    const long = normalizeText(text).length > LONG_TEXT_CHARS;
    const qs: TextStyle = long ? { ...longStyle, fallbacks: fb.text, hyphenate: hyphenatorFor(guessLanguage(text)) } : { ...quoteStyle(memory.pinned), fallbacks: fb.quote };
    const align = long ? 'left' : look.align;
    // A magazine theme sets a long memory in two columns, the second balanced against the first on its last page.
    const columns = long ? look.longColumns : 1;
    const colGap = COLUMN_GAP;
    // The theme's text column (its measure); in two, each. A long memory in a script whose letters are
    // narrower than Latin ones keeps the measure in characters: its column is narrower, placed as the theme places it.
    const grid = gridOn(pageNo);
    // (Beside its photo, the words take the rest of the column.)
    // (The column's margins mirror from verso to recto: beside a photo its words are as wide on either.)
    const besideW = block.beside ? grid.column.w - besideLayout(grid.live, grid.column, block.beside.w, g.isRecto(pageNo)).text.w : 0;
    const textWidth = columns === 2 ? grid.text[0].w - barIndent : long ? Math.min(grid.column.w - barIndent, longMeasureWidth(text, qs)) : grid.column.w - barIndent - besideW;
    const spare = columns === 1 ? grid.column.w - barIndent - textWidth : 0;
    let col = 0;
    const lines = (long && columns === 1 && look.dropCap && dropCapLines(measure, text, qs, textWidth, [faces.title, faces.text, ...fb.text].map((face) => ({ face, capHeight: capHeightOf(face) })), capHeightOf(faces.text))) || breakLines(measure, text, qs, textWidth);
    const pitch = qs.size * qs.leading;
    const when = bookText.day(new Date(memory.date));
    // A caption theme sets the date in capitals; a name always prints as its writer spelt it.
    // A date never breaks across lines (no year alone on the next).
    const date = (look.captionCaps ? when.toUpperCase() : when).replace(/ /g, '\u00a0');
    // Dates only where they tell something (see dateMode): a month's first memory opens a chapter, a
    // journal's entry is headed by its day.
    const month = dateMode === 'month' && !memory.pinned ? bookText.month(new Date(memory.date)) : null;
    const headText = month && month !== chapter ? month : look.datedEntries && dateMode === 'day' ? when : null;
    if (month) chapter = month;
    // A theme of chapter pages opens the month on a page of its own; its memory carries no heading then.
    const chapterOpens = look.chapterPages && !!month && headText === month;
    const dated = dateMode === 'day' && !look.datedEntries ? date : null;
    // Who wrote it comes first: the memory opens with its byline (and its day when the days tell something).
    const bylineLines = memory.signature || dated ? breakLines(measure, [memory.signature, dated].filter(Boolean).join(' · '), signatureStyle, textWidth) : [];
    const bylineHeight = bylineLines.length ? bylineLines.length * signatureStyle.size * signatureStyle.leading + 5 : 0;
    // A quote page keeps the epigraph's order: the words, then who said them (the dash stays with the name).
    const sigLines = breakLines(measure, [memory.signature ? `—\u00a0${memory.signature}` : null, dated].filter(Boolean).join(' · '), signatureStyle, textWidth);
    // Recordings and videos: each its own block after the words, a QR code with whose voice or video it is and
    // how long beside it, and a completed transcript under it in the text face.
    const codes = memory.recordings.map((r) => voiceBlock(r, memory.signature, signatureStyle, fb.text, textWidth));
    const sigHeight = codes.length ? 6 + codesHeight(codes) : 0;
    const heading = headText && !chapterOpens ? breakLines(measure, headText, dateStyle, textWidth) : [];
    // Above taped photos the heading keeps clear of the tape, which reaches above the prints.
    const tapeClearance = block.pictures.length && look.mount === 'tape' ? 9 : 0;
    const headingHeight = heading.length ? heading.length * dateStyle.size * dateStyle.leading + 6 + tapeClearance : 0;
    const markHeight = look.quoteMark === 'glyph' && !long ? 30 : 0;
    // The photo block at a scale k of its size (it may shrink to fit the room left on a page).
    const picturesAt = (k: number) => (block.height ? block.height * k + GAP * 1.5 : 0);
    let picturesHeight = picturesAt(1);
    const linesHeight = (ls: Line[]) => ls.reduce((n, l) => n + pitch + (l.paragraphStart ? pitch * 0.45 : 0), 0);
    // In two columns the words take about the height of the first, balanced against the second.
    const textHeight = linesHeight(columns === 2 && lines.length >= 4 ? lines.slice(0, Math.ceil(lines.length / 2)) : lines);
    // A long letter opens with a pull quote: a sentence of it set large between two rules, across the text columns.
    const pull = long && look.pullQuote && !(look.pictureOpens && block.pictures.length) && normalizeText(text).length > PULL_QUOTE_CHARS ? pullQuoteOf(text) : null;
    const pullStyle: TextStyle = { face: faces.quote, fallbacks: fb.quote, size: Math.max(look.quoteSize, look.longSize * 1.25) * 1.25, leading: 1.3 };
    const pullWidth = gridOn(pageNo).column.w - barIndent;
    let pullLines = pull ? evenLines(pull, pullStyle, pullWidth) : [];
    let pullHeight = pullLines.length ? pullLines.length * pullStyle.size * pullStyle.leading + mm(12) : 0;
    // A photo beside the words starts level with the byline: the memory is as tall as the taller of the two.
    const besideExtra = block.beside ? Math.max(0, block.beside.h - (bylineHeight + markHeight + textHeight + sigHeight)) : 0;
    let total = headingHeight + picturesHeight + bylineHeight + pullHeight + markHeight + textHeight + sigHeight + besideExtra;
    // Pacing (see pacing.ts): a long memory carries its held photos through its pages, and lends its sentences to quote pages.
    const ownHeld = ready.held.map((pic) => ({ key: pic.key, memoryId: memory.id, caption: albumCaption(memory.signature), japanese }));
    // Book-wide (see pacing.ts): it keeps the first half of the photos it holds back; the rest join the book's reserve once it is set.
    const reserved = ownHeld.splice(keptHeld(ownHeld.length));
    // (An album and a memorial take them one a page; a theme that hangs them at the top of the letter's pages, one at a time.)
    const singles = look.photoSpread || look.onePerPage || look.hangHeld;
    const every = photoInterval(Math.ceil(textHeight / content.h), singles ? ownHeld.length : heldPageSizes(ownHeld.length, look.breatherPairs, true).length);
    // (From the page it opens on: none comes before its words.)
    spread = every ? { pages: await heldPages(ownHeld, { carried: true, singles: look.hangHeld }), every, from: Infinity } : null;
    // A run of words it would make (or carry on) long enough to need breathers the reserve has not: borrowed from memories to come.
    const ownPages = Math.ceil(total / content.h);
    const runAhead = block.pictures.length || block.bleed ? ownPages - 1 : runPages() + ownPages;
    if (!spread) while (reserve.length < breathersWanted(runAhead) && (await borrowBreather()));
    const design = { memoryId: memory.id, style: { ...quoteStyle(memory.pinned), fallbacks: fb.quote }, pinned: memory.pinned, align: look.align, heading: null, sigLines, sigStyle: signatureStyle, codes: [] };
    // (In quotation marks, unless the theme sets its own large mark above them; never the sentence its pull quote opens with.)
    const quoted = quotableSentences(text).map((x) => (look.quoteMark === 'glyph' ? x : `\u201C${x}\u201D`));
    const letterBefore = reading;
    reading = long ? { design, sentences: quoted.filter((x) => x !== pull && `\u201C${x}\u201D` !== pull) } : null;

    // The column moves with the page (the gutter is on the other side of a verso): read it where each piece is drawn.
    // A right-to-left memory mirrors its columns: its first column is the right one, its bar hangs to the right of it
    // (its lines keep their place, on the text column's line where a Swiss grid's photos hang).
    const rtl = lines[0]?.dir === 'rtl';
    const column = () => {
      if (block.beside) {
        const t = besideLayout(gridOn(pageNo).live, gridOn(pageNo).column, block.beside.w, g.isRecto(pageNo)).text;
        return { x: t.x + barIndent, w: textWidth };
      }
      const at = gridOn(pageNo).column.x;
      // (A Swiss grid's narrower column keeps to the line its photos hang from: the fold's side, its room going to the fore-edge.)
      const againstFold = look.column === 'inner' || look.photoHang;
      const inset = look.column === 'centre' ? spare / 2 : againstFold === g.isRecto(pageNo) ? 0 : spare;
      const seen = rtl && columns === 2 ? 1 - col : col;
      return { x: at + barIndent + inset + seen * (textWidth + barIndent + colGap), w: textWidth };
    };
    const chapterAt = chapterOpens ? chapterPage(month!, memory.date, letterBefore) : null;
    // Keep a memory on one page when it fits on one, unless that leaves this page mostly empty: then it
    // starts here and goes on overleaf. It starts only where its photos with its first two lines (a short
    // one's all), or two lines, fit. Photos that do not fit below what is on the page shrink a little
    // (to PHOTO_SCALE_FIT) rather than go overleaf, and further (to PHOTO_SCALE_SHORT) rather than leave
    // the page mostly empty.
    const words = () => bylineHeight + pullHeight + (lines.length ? markHeight + (lines.length <= 3 ? textHeight + sigHeight + 6 : linesHeight(lines.slice(0, 3))) : sigHeight);
    const opening = (k: number) => headingHeight + picturesAt(k) + words();
    // A word or two is never display type (a quote page, a tail quote): it is set with its neighbours, at its ordinary size.
    const tiny = !block.pictures.length && !block.bleed && !codes.length && wordCount(text) <= TINY_WORDS;
    const quoteDesign = () => (!tiny && !block.pictures.length && !block.bleed && total < content.h * SPARSE_SHARE ? { memoryId: memory.id, text, style: qs, pinned: memory.pinned, align, heading: chapterOpens ? null : headText, sigLines, sigStyle: signatureStyle, codes } : null);
    let quote = quoteDesign();
    // (A short memory's opening is all of it, with the room its mark asks for.)
    let whole = Math.max(total, opening(1));
    // An album's spread: its one photo alone on a page facing the page its words open on (see pages/album-spread.ts).
    const spreadPic = look.photoSpread ? (block.bleed ?? (block.pictures.length === 1 ? block.pictures[0] : null)) : null;
    const fresh = () => atTop() && !groups.some((gr) => gr.ops.length);
    // Whether its words (without the photo) open on this page, as the rules below place them: whole, or a long one's opening.
    const [bare, bareOpening, onPage] = [total - picturesHeight, headingHeight + words(), groups.filter((gr) => gr.ops.length).length];
    // (A long letter opening with its pull quote opens so when half the page is left: it faces its photo rather than a page of its own.)
    const letterOpens = lines.length > KEEP_WHOLE_LINES && (pull ? room() >= content.h / 2 : bare > content.h || pageShort());
    const opensHere = !(look.perPage && onPage >= look.perPage && !pageShort()) && (Math.max(bare, bareOpening) <= room() || (letterOpens && bareOpening <= room()));
    let move = spreadPic ? spreadMove({ fresh: fresh(), recto: g.isRecto(pageNo), short: pageShort(), quoteTooSoon: quoteTooSoon(), opensHere }) : 'inline';
    const movedFrom = pageNo;
    if (move === 'turn') {
      // (Held photos due may take pages at the turn: the page it comes to decides.)
      memoryPage();
      move = fresh() && !g.isRecto(pageNo) ? 'here' : 'inline';
    }
    if (spreadPic && move === 'inline' && !spread && ownHeld.length && fresh() && g.isRecto(pageNo)) {
      // On a right-hand page with nothing on it yet, a photo it holds back opens it there, alone, and the spread follows overleaf.
      const first = ownHeld.shift()!;
      const photo = await breatherPicture(first.key);
      if (photo) {
        decorateDue = null;
        drawBreather(photo, first, undefined, true);
        memoryPage();
        move = fresh() && !g.isRecto(pageNo) ? 'here' : 'inline';
      }
    }
    const spreadBleed = !!block.bleed;
    const album = block.album;
    if (spreadPic && move !== 'inline') {
      const bleed = spreadBleed;
      [block.pictures, block.height, block.bleed, block.album] = [[], 0, undefined, undefined];
      [total, picturesHeight] = [total - picturesHeight, 0];
      whole = Math.max(total, opening(1));
      quote = quoteDesign();
      if (move !== 'facing') {
        spreadPhotoPage({ pic: spreadPic, bleed, memoryId: memory.id, album }, true);
        memoryPage();
      }
    }
    if (block.bleed) plate(block.bleed);
    // Short of room, the space kept after the memory above closes up to what its ornament needs (a card
    // needs all of it) before this one shrinks or goes overleaf: the page's free space is shared out again when drawn.
    // A long letter with its pull quote opens a page of its own (from a page already well filled).
    // (Unless that leaves a quote page too soon after the last: then it joins the short memory on its page.)
    // A short memory alone on the page being set, after a quote page: this one joins it rather than leave two back to back (see quotesApart).
    // (The book's last memory, short, joins one too: alone it would make a quote page after it.)
    // (So does any memory after a word or two alone: a certificate is for a real short tribute, not one word.)
    const lone = groups.filter((gr) => gr.ops.length);
    // (In every theme, a word or two alone at a page's head is joined by the memory after it: never a page of its own.)
    const tinyAlone = !atTop() && lone.length === 1 && !!lone[0].tiny && !lone[0].continued && !lone[0].flowsOn;
    const joinsQuote = (look.quotesApart && !atTop() && (lastQuotePage === pageNo - 1 || (!!ready.last && !!quote)) && isQuotePage(lone)) || tinyAlone;
    // A short memory after a letter's tail alone at a page's head goes overleaf, the page filled under the tail first (see tailFill).
    // (A word or two does in every theme, rather than leave the tail's page half empty but for it.)
    if (((look.tailFill && quote) || tiny) && !atTop() && tailAlone() && pageShort() && (await fillUnderTail(letter))) memoryPage();
    else if (!joinsQuote && pull && move !== 'facing' && !atTop() && !pageShort() && !quoteTooSoon()) memoryPage();
    // A theme of one memory a page opens each on a page of its own (unless that leaves this one mostly empty).
    // (Short ones already set together on a page take a third and a fourth, composed between ornaments.)
    else if (!joinsQuote && !tiny && look.onePerPage && !atTop() && !pageShort() && !quoteTooSoon() && !(quote && shortsTogether())) memoryPage();
    // An album sets so many memories a page at most, between its ornaments.
    else if (!joinsQuote && !tiny && look.perPage && groups.filter((gr) => gr.ops.length).length >= look.perPage && !atTop() && !pageShort() && !quoteTooSoon()) memoryPage();
    // A catalogue's pictured memory opens on a verso, its plate on the recto facing it (after a plate still waiting for its recto).
    else if (!joinsQuote && ownPlate && !atTop() && !pageShort() && (g.isRecto(pageNo) || due.length)) memoryPage();
    // A picture book's memory with a photo opens a page of its own: a letter's last lines left on theirs take a sentence
    // of it set large under them, or a page left mostly empty a held photo, if one is due.
    else if (!joinsQuote && look.pictureOpens && block.pictures.length && !atTop() && (!!tailQuoteAt(groups.filter((gr) => gr.ops.length)) || tailPull(letterBefore) || !pageShort() || (await breatherBelow()))) {
      // (A quote page breaking a run of words at this turn sets a sentence of the letter just read, not of this memory.)
      const mine = reading;
      reading = letterBefore;
      memoryPage();
      reading = mine;
    }
    // A few words after a letter's tail, on a page they would leave half empty: a held photo fills the room under the tail first (the words go overleaf, or under it).
    if (quote && groups.length === 1 && groups[0].continued && groups[0].closed && pageShort()) await breatherBelow();
    // (Under a letter's tail alone, a line of the letter set large does too, in a theme that fills a tail's page: see tailFill.)
    const fillsTail = look.tailFill && tailAlone();
    if (!atTop() && whole > room() && (due.length || (reserve.length && !look.photoSpread) || fillsTail) && (pageShort() || quoteTooSoon())) {
      // This memory would go overleaf from a page left mostly empty: a held photo fills the room first.
      const spare = room() - 1;
      const all = block.height ? 1 - (whole - spare) / block.height : 0;
      const start = block.height ? Math.min(1, 1 - (opening(1) - spare) / block.height) : opening(1) <= room() ? 1 : 0;
      if (all < PHOTO_SCALE_SHORT && start < PHOTO_SCALE_SHORT) await (fillsTail ? fillUnderTail(letter) : breatherBelow());
    }
    const above = groups.at(-1);
    if (!atTop() && above?.closed && above.ops.length && whole > room() && !look.cards) y = Math.min(y, above.bottom + BETWEEN_MIN);
    groups.push({ ops: [], top: y, bottom: y, continued: false, flowsOn: false, closed: false, quote, tiny });
    let scale = 1;
    // A memory of a few lines is never split over a page turn (its photos shrink further, on a page of their own, to keep it whole).
    const keepWhole = lines.length <= KEEP_WHOLE_LINES && total - picturesHeight <= content.h;
    if (!atTop() && whole > room()) {
      // The scale at which the photos let the whole memory, or its opening, fit in the room left (a point
      // to spare, so the lines measured to fit still do).
      const spare = room() - 1;
      const all = block.height ? 1 - (whole - spare) / block.height : 0;
      let start = block.height ? Math.min(1, 1 - (opening(1) - spare) / block.height) : opening(1) <= room() ? 1 : 0;
      // (Rather than leave a quote page too soon after the last, as rather than leave a page mostly empty.)
      const short = pageShort() || quoteTooSoon();
      const floor = short ? PHOTO_SCALE_SHORT : PHOTO_SCALE_FIT;
      if (short && pullHeight && start < floor) {
        // Rather than leave a page mostly empty, a long letter opens here without its pull quote.
        total -= pullHeight;
        [pullLines, pullHeight] = [[], 0];
        whole = Math.max(total, opening(1));
        start = block.height ? Math.min(1, 1 - (opening(1) - spare) / block.height) : opening(1) <= room() ? 1 : 0;
      }
      // A short memory goes overleaf whole, even from a page left short (a held photo fills it first, above).
      if (all >= floor) scale = all;
      else if ((total <= content.h && !short) || keepWhole) memoryPage();
      else if (start >= floor) scale = start;
      else memoryPage();
    }
    const needed = keepWhole ? whole : opening(1);
    if (atTop() && block.height && needed > room()) {
      // Even on a page of their own the photos would part from the words: they shrink a little to keep them
      // (further for a short memory, kept whole).
      const k = 1 - (needed - (room() - 1)) / block.height;
      if (k >= (keepWhole ? PHOTO_SCALE_SHORT : PHOTO_SCALE_FIT)) scale = k;
    }

    if (spreadPic && move === 'facing') {
      // Its words open on the verso it was placed from: the photo takes the recto facing it, at the turn. (Gone
      // overleaf after all, they open on a page of their own after the photo's.)
      if (pageNo === movedFrom) facingPhoto = { pic: spreadPic, bleed: spreadBleed, memoryId: memory.id, album };
      else {
        spreadPhotoPage({ pic: spreadPic, bleed: spreadBleed, memoryId: memory.id, album }, fresh());
        memoryPage();
      }
    }
    const opened = pageNo;
    if (spread) spread.from = opened;
    // The contents list each month's chapter.
    if (month && headText === month) chapters.push({ label: month, page: chapterAt ?? opened, japanese: false, chapter: true });
    if (heading.length) {
      // A chapter's month, or a journal entry's day: above the memory's photos and words.
      const [hx, hw] = block.beside ? [gridOn(pageNo).column.x, gridOn(pageNo).column.w] : [column().x, textWidth];
      paintHeading(heading, hx, hw, headingHeight - tapeClearance, look.datedEntries ? p.text : p.accent);
      y += headingHeight;
    }
    /** Where a photo beside the words ends, and on which page (the words' foot goes no higher). */
    let besideEnd: { page: number; y: number } | null = null;
    if (block.beside && block.pictures.length) {
      const [top, , , padLeft] = mountPadding(look.mount);
      const [pic, box] = [block.pictures[0], block.beside];
      const at = { x: besideLayout(gridOn(pageNo).live, gridOn(pageNo).column, box.w, g.isRecto(pageNo)).photoX, y };
      const n = pageNo;
      paint((dy) => {
        placePicture(pic, at.x + padLeft + pic.dx, at.y + top + pic.dy + dy);
        input.trace?.picture?.(n, memory.id, { x: at.x, y: at.y + dy, w: box.w, h: box.h, beside: true });
      });
      besideEnd = { page: pageNo, y: y + box.h };
    } else if (block.pictures.length) {
      const [top, , , padLeft] = mountPadding(look.mount);
      // Shrunk, the block keeps its cells, gutters and mounts in proportion, centred on the column.
      const area = gridOn(pageNo).photos;
      // (A photo with a card pasted over its foot sits centred over the card.)
      const one = block.pictures.length === 1 && look.cards && look.cardOverlap ? block.pictures[0] : null;
      const over = one ? centreOverCard({ x: area.x + one.cell.x + padLeft + one.dx, w: one.width }, gridOn(pageNo).column, gridOn(pageNo).live) : 0;
      const [ox, oy, k] = [area.x + area.w / 2 + over, y, scale];
      let x0 = area.x + over;
      if (look.photoHang) {
        // A Swiss grid's block starts on the text column's line (swiss-grid.ts), wherever shrinking would centre it.
        const [from, to] = [Math.min(...block.pictures.map((c) => c.cell.x + c.dx)), Math.max(...block.pictures.map((c) => c.cell.x + c.dx + c.width))];
        const left = ox + (x0 + from - ox) * k;
        // (On the column its words are set in: a measure narrower than the grid's column is set in from it.)
        const words = column();
        x0 += (hangingX(area, { ...gridOn(pageNo).column, x: words.x - barIndent }, (to - from) * k, barIndent) - left) / k;
      }
      const pictures = k < 1 ? await Promise.all(block.pictures.map((pic) => resamplePicture(pic, k))) : block.pictures;
      // A photo prints soft below MIN_PRINT_PPI at the size it is drawn (a block shrunk to fit prints it sharper).
      for (const pic of pictures) {
        const ppi = pic.widthPx / ((pic.width * k) / 72);
        if (ppi < MIN_PRINT_PPI) lowResolution.push({ key: pic.key, ppi: Math.round(ppi) });
      }
      block.pictures.forEach((pic, i) => {
        if (pictures[i] !== pic) pic.jpeg = Buffer.alloc(0);
      });
      paint((dy) => {
        if (k < 1) doc.save().translate(ox, oy + dy).scale(k).translate(-ox, -oy - dy);
        for (const pic of pictures) {
          const px = x0 + pic.cell.x + padLeft + pic.dx;
          placePicture(pic, px, oy + pic.cell.y + top + pic.dy + dy);
          input.trace?.picture?.(pageNo, memory.id, { x: ox + (px - ox) * k, w: pic.width * k });
        }
        if (k < 1) doc.restore();
      });
      y += block.height * k + GAP * 1.5;
      if (look.cards && look.cardOverlap) {
        // The card is pasted over the photo's foot: the words start on it, a card's margin below its top.
        const group = groups.at(-1)!;
        // (At most its foot, never a face: see cardTopOver.)
        const drawn = one ? { y: oy + (one.cell.y + top + one.dy) * k, h: one.height * k } : { y: oy, h: block.height * k };
        [group.cardAt, group.cardTop] = [group.ops.length, cardTopOver(drawn, one?.subject)];
        const [n, cardTop] = [pageNo, group.cardTop];
        paint((dy) => input.trace?.card?.(n, memory.id, { top: cardTop + dy, photo: { y: drawn.y + dy, h: drawn.h }, subject: one?.subject ?? null }));
        y = group.cardTop + CARD_PAD;
      }
    }

    if (bylineHeight || (markHeight && lines.length)) {
      // The byline, pull quote and mark go with the first three lines (no memory starts within three lines of
      // the foot); with a short memory, with all of it.
      if (room() < bylineHeight + pullHeight + markHeight + (lines.length <= 3 ? textHeight + sigHeight + 6 : pitch * 3)) memoryPage();
      if (bylineLines.length) {
        const c = column();
        y = paintBlock(bylineLines, signatureStyle, c, y, align, p.muted, (baseline) => input.trace?.signature?.(pageNo, memory.id, { baseline, column: c })) + 5;
        if (memory.signature) contributed(memory.signature, pageNo, japanese);
      }
      if (pullLines.length) {
        // Right to left, the quote's indent (a bar theme's) and its rules mirror: drawn from the column's right edge, where its lines start.
        const pullRtl = pullLines[0]?.dir === 'rtl' && align !== 'center';
        const box = { x: gridOn(pageNo).column.x + (pullRtl ? 0 : barIndent), w: pullWidth };
        const [top, ls, ruleW] = [y + mm(4), pullLines, Math.min(pullWidth, mm(30))];
        const ruleX = align === 'center' ? box.x + (box.w - ruleW) / 2 : pullRtl ? box.x + box.w - ruleW : box.x;
        input.trace?.pullRule?.(pageNo, memory.id, { x: ruleX, w: ruleW, box });
        const end = top + ls.length * pullStyle.size * pullStyle.leading + mm(3);
        paint((dy) => {
          doc.save().lineWidth(0.8).strokeColor(p.accent).moveTo(ruleX, top - mm(1) + dy).lineTo(ruleX + ruleW, top - mm(1) + dy).stroke();
          doc.moveTo(ruleX, end + dy).lineTo(ruleX + ruleW, end + dy).stroke().restore();
          drawBlock(ls, pullStyle, box, top + mm(1) + dy, align, p.text);
        });
        y += pullHeight;
      }
      if (markHeight && lines.length) {
        const markStyle: TextStyle = { face: faces.quote, fallbacks: [], size: 40, leading: 1 };
        const [mark] = breakLines(measure, '“', markStyle, 100);
        const mx = align === 'center' ? column().x + (column().w - mark.width) / 2 : column().x;
        const my = y + 34;
        paint((dy) => drawLine(mark, mx, my + dy, markStyle, p.accent));
        y += markHeight;
      }
    }
    // A catalogue's plate: on the next recto, facing the page these words open on.
    if (ownPlate) due.push(...(await heldPages([{ key: ownPlate.key, memoryId: memory.id, caption: albumCaption(memory.signature), japanese }], { plate: true })));
    // Lines go page by page; at a break at least two lines stay behind and two go over (no orphan, no
    // widow), and the signature goes with the last lines.
    let i = 0;
    let colTop = y;
    let colBottom = y;
    // A bar theme marks a memory's opening: a short memory's lines, only the first paragraph of a long one
    // (a bar beside every paragraph stripes the page).
    const secondParagraph = lines.findIndex((l, k) => k > 0 && l.paragraphStart);
    const barredLines = long && secondParagraph > 0 ? secondParagraph : lines.length;
    while (i < lines.length) {
      let fits = 0;
      let h = 0;
      const columnTop = atTop() || (col === 1 && y <= colTop + 0.5);
      for (let j = i; j < lines.length; j++) {
        const gap = lines[j].paragraphStart && (j > i || !columnTop) ? pitch * 0.45 : 0;
        const tail = j === lines.length - 1 ? sigHeight : 0;
        if (h + gap + pitch + tail > room()) break;
        h += gap + pitch;
        fits++;
      }
      const left = lines.length - i;
      if (fits < left) {
        if (left - fits < 2) fits = left - 2;
        if (fits < 2) fits = atTop() ? Math.max(1, Math.min(left - 2, 1)) : 0;
      }
      // The first column takes half of what is left when the rest and the signature fit in the two (a line
      // more or less where the half would leave a paragraph's first or last line alone).
      if (columns === 2 && col === 0 && left >= 4 && 2 * fits >= left + 2) {
        const [half, most] = [Math.ceil(left / 2), fits];
        fits = [half, half + 1, half - 1, half + 2, half - 2].find((c) => c >= 2 && left - c >= 2 && c <= most && left - c < most && !splitsParagraph(lines, i + c)) ?? half;
      }
      // Nor is a paragraph's first line left alone at the foot, or its last alone overleaf (TeX's club and
      // widow): the break moves up a line at a time while two of the memory's lines stay behind.
      while (fits > 2 && i + fits < lines.length && splitsParagraph(lines, i + fits)) fits--;
      for (let j = i; j < i + fits; j++) {
        const line = lines[j];
        if (line.paragraphStart && !(j === i && columnTop)) y += pitch * 0.45;
        // Every line of a long memory but a paragraph's last is set flush on both sides (from the column's left, whatever its direction).
        const indent = line.indent ?? 0;
        const justifyTo = long && look.justify && !line.last ? textWidth - indent : undefined;
        const [bx, ly, lx] = [rtl ? column().x + column().w + barIndent - 2.6 : column().x - barIndent, y, (justifyTo ? column().x : lineX(line, column(), align)) + indent];
        const col = column();
        if (look.quoteMark === 'bar' && j < barredLines)
          paint((dy) => {
            doc.save().rect(bx, ly + 1 + dy, 2.6, pitch - (j === barredLines - 1 ? 2 : -1)).fill(p.accent).restore();
            input.trace?.bar?.(pageNo, memory.id, { x: bx, y: ly + 1 + dy, column: col });
          });
        const first = j === 0 || line.paragraphStart;
        const initial = line.initial;
        if (initial) {
          // The drop cap, its baseline on the last line it sinks into, drawn before the words beside it (the text layer reads it first).
          const capLine = breakLines(measure, initial.text, { face: initial.face, fallbacks: [], size: initial.size, leading: 1 }, Number.MAX_SAFE_INTEGER)[0];
          const capBaseline = ly + baselineOffset(qs) + (DROP_LINES - 1) * pitch;
          paint((dy) => drawLine(capLine, col.x, capBaseline + dy, { face: initial.face, fallbacks: [], size: initial.size, leading: 1 }, p.accent));
        }
        paint((dy) => {
          drawLine(line, lx, ly + baselineOffset(qs) + dy, qs, p.text, justifyTo);
          input.trace?.line?.(pageNo, memory.id, { baseline: ly + baselineOffset(qs) + dy, column: col, size: qs.size, italic: italicFace(qs.face), long, justified: !!justifyTo, first, last: !!line.last, dir: line.dir, align });
        });
        y += pitch;
      }
      i += fits;
      colBottom = Math.max(colBottom, y);
      if (i >= lines.length) break;
      if (columns === 2 && col === 0) {
        col = 1;
        y = colTop;
      } else {
        memoryPage();
        col = 0;
        colTop = colBottom = y;
      }
    }
    if (room() < sigHeight && !atTop()) {
      memoryPage();
      col = 0;
      colBottom = y;
    }
    if (codes.length) y = layCodes(codes, column(), y + 6, align, paint);
    if (besideEnd && besideEnd.page === pageNo) y = Math.max(y, besideEnd.y);
    memoryCount++;
    y = Math.max(y, colBottom);
    const group = groups.at(-1)!;
    group.bottom = y;
    group.closed = true;
    // Its photos beyond what the theme shows with the words come right after it (those it has not carried), captioned as in an album (by who sent them).
    if (spread) due.push(...spread.pages);
    else held.push(...ownHeld);
    spread = null;
    await toReserve(reserved, memory.signature);
    // (The reserve is spent by the book's end: one after each memory once it holds as many as memories are left; a
    // photo lent by a memory still to come waits for its memory, to follow it if no run has needed it.)
    const placed = (page: (typeof reserve)[number]) => !upcoming.some((r) => r.memory.id === page.photos[0].h.memoryId);
    while (reserveDue(reserve.length, input.memoryCount - memoryCount) && reserve.some(placed)) due.push(...reserve.splice(reserve.findIndex(placed), 1));

    // Room for the theme's ornament between memories (drawn when the page is balanced); the turn of a page does that job when there is no room left.
    y += GAP * 1.6;
    // An album's spread keeps its page of words to itself (a short one's is a quote page): the next memory turns the page.
    ownPage = spreadPic && move !== 'inline' && pageNo === opened ? pageNo : null;
    if (room() > 46) {
      y += 16 + GAP * 1.8;
    } else {
      y = content.y + content.h;
    }
  }

  try {
    await cover();
    if (look.frontispiece) await frontispiece();
    coverVerso();
    memoryPage();
    for await (const ready of ahead(input.memories)) await placeMemory(ready);
    // (A picture book's last letter ending in a few lines at a page's head: a drawn picture under them, not a page left mostly empty.)
    if (look.illustrationRun && tailAlone() && pageShort()) sceneUnderTail();
    flushPage();
    // The last memory's held photos follow it as the others do (its pages end where they do).
    await prepareHeld();
    due.push(...reserve.splice(0));
    while (due.length) drawDuePage(due.shift()!, false);
    if (memoryCount === 0) {
      const s: TextStyle = { face: faces.quote, fallbacks: fallbacks.quote, size: 14, leading: 1.4 };
      drawCentredLine('No memories have been approved yet.', s, content.x + content.w / 2, content.y + content.h / 2, p.muted, content.w);
    }
    await ending();
    contentsPage();
    doc.end();
    await written;
  } catch (err) {
    doc.unpipe(input.output as NodeJS.WritableStream);
    (input.output as NodeJS.WritableStream & { destroy?(e?: Error): void }).destroy?.(err as Error);
    throw err;
  }
  return { pageCount: pageNo, pictures: pictureCount, memories: memoryCount, coverPictureKey: input.coverPicture ?? pinnedPicture ?? firstPicture, lowResolution, back: { quote: backQuote, dates, contributors: [...contributors.keys()] } };

  /**
   * The ending: “With love from” and every contributor with the pages their memories open on (the
   * contributors' index), then the last page: a closing photo (the cover's) above the colophon. The two face
   * each other: the index ends on a verso, the closing page is the recto opposite. When the last memory ends
   * so that they would not, the page between is a designed one (see turnPage), never a blank. A book has an
   * even number of pages, a printed one a multiple of 4: the pages left over are filled before the ending (in
   * pairs, so the spread keeps its place): ruled for notes in a theme meant for writing on light paper, else a
   * quote from the book and the closing photo on a page of its own (endingPlan). The colophon is the last
   * printed page; at most the back of its leaf is left blank.
   */
  async function ending() {
    const listPages = contributorPages();
    const photoKey = input.coverPicture ?? pinnedPicture ?? firstPicture;
    const photo = photoKey ? await closingPhoto(photoKey) : null;
    // The pages the book must have over are filled before the ending, the colophon the last printed page (ending-plan.ts).
    const plan = endingPlan(pageNo, listPages.length, input.printReady ? 4 : 2, look.datedEntries && !reversed, !!photo);
    const quotes = [backQuote, ...endQuotes.filter((q) => q.signature !== backQuote?.signature)];
    for (const page of plan.fill) {
      if (page === 'notes') notesPage();
      else if (page === 'photo' && photoKey && (await closingPlatePage(photoKey))) continue;
      else turnPage(quotes.shift() ?? null);
    }
    for (const page of listPages) page();
    colophon(plan.photoUsed ? null : photo);
    for (let i = 0; i < plan.blanks; i++) newPage('blank');
  }

  /** The closing photo on a page of its own before the ending (as the theme sets a breather), the book's title its caption. */
  async function closingPlatePage(key: string): Promise<boolean> {
    const pic = await breatherPicture(key);
    if (!pic) return false;
    const n = newPage('closing');
    content = g.content(n);
    drawBreather(pic, { key, memoryId: '', caption: input.title, japanese: bookIsJapanese });
    input.trace?.page?.(n, 'closing');
    return true;
  }

  /**
   * A page that puts the ending on its spread (or fills the book before it): the theme's quote page with a line
   * from the book, `quote` (else its title).
   */
  function turnPage(quote: BackText['quote']) {
    // Traced as the ending's page, not as a quote page of a memory (its line is the book's, not a letter's).
    const n = newPage('closing');
    content = g.content(n);
    decorateDue = n;
    decorate();
    const signature = quote?.signature ?? null;
    const sigStyle: TextStyle = { ...bookSignatureStyle, fallbacks: fallbacks.body };
    const sigLines = signature ? breakLines(measure, `\u2014\u00a0${signature}`, sigStyle, content.w * 0.86) : [];
    quotePage({ memoryId: '', text: quote?.text ?? input.title, style: quoteStyle(false), pinned: false, align: look.align, heading: null, sigLines, sigStyle, codes: [], pulled: true });
  }

  /** The closing photo, at most two-thirds of the page, its own shape (within 4:5 and 3:2), at 200 ppi or more. */
  async function closingPhoto(key: string): Promise<Placed | null> {
    const copy = await openOrSkip(key);
    if (!copy) return null;
    try {
      const size = await uprightSize(copy.path);
      if (!size) return null;
      const aspect = Math.min(1.5, Math.max(0.8, size.w / size.h));
      // (It shares the last page with the colophon under it.)
      const side = g.trim * 0.5;
      const box = cellAtLeast(size, aspect >= 1 ? { w: side, h: side / aspect } : { w: side * aspect, h: side }, MIN_PRINT_PPI);
      const ready = await prepareCroppedPicture(copy, box, p.background, key === input.coverPicture ? (input.coverFocal ?? undefined) : undefined);
      return ready ? { ...ready, kind: 'photo', key, cell: { x: 0, y: 0, w: box.w, h: box.h }, dx: 0, dy: 0 } : null;
    } finally {
      await copy.release();
    }
  }

  /**
   * A memorial's frontispiece, the book's first spread (see pages/frontispiece.ts): on the verso the cover photo
   * cropped upright round its subject as a portrait, large, in the theme's mount, at 200 ppi or more (a small
   * original smaller); facing it on the recto the theme's ornament, the name as the title names them and their
   * years when it gives them. Without a photo, the verso is left plain paper and the name faces it.
   */
  async function frontispiece() {
    newPage('frontispiece');
    const key = input.coverPicture;
    const copy = key ? await openOrSkip(key) : null;
    if (copy) {
      let photo: PreparedPicture | null = null;
      try {
        const size = await uprightSize(copy.path);
        const frame = portraitBox(g.trimmed());
        const box = size ? cellAtLeast(size, frame, MIN_PRINT_PPI) : null;
        photo = box ? await prepareCroppedPicture(copy, box, p.background, input.coverFocal ?? undefined) : null;
      } finally {
        await copy.release();
      }
      if (photo) {
        const frame = portraitBox(g.trimmed());
        const [x, top] = [frame.x + (frame.w - photo.width) / 2, frame.y + (frame.h - photo.height) / 2];
        placePicture({ ...photo, kind: 'photo', key: key!, cell: { x: 0, y: 0, w: photo.width, h: photo.height }, dx: 0, dy: 0, ppi: photo.widthPx / (photo.width / 72) }, x, top, false);
      }
    }
    const n = newPage('frontispiece');
    const live = g.content(n);
    const cx = live.x + live.w / 2;
    const honoured = honouredOf(input.title, input.subtitle);
    const nameStyle: TextStyle = { face: faces.title, fallbacks: fallbacks.title, size: look.quoteSize + 14, leading: 1.2, characterSpacing: style.titleUppercase ? 3 : 0, features: LINING_FIGURES };
    const yearsStyle: TextStyle = { face: faces.body, fallbacks: fallbacks.body, size: look.captionSize + 4, leading: 1.3, characterSpacing: 1.5, features: LINING_FIGURES };
    const name = style.titleUppercase ? honoured.name.toLocaleUpperCase() : honoured.name;
    const nameLines = evenLines(name, nameStyle, live.w);
    const nameH = nameLines.length * nameStyle.size * nameStyle.leading;
    const yearsH = honoured.years ? yearsStyle.size * yearsStyle.leading + mm(5) : 0;
    const ornamentH = mm(16);
    // The ornament, the name and the years a little above the middle of the page (its optical centre), level with the portrait's.
    let at = live.y + Math.max(0, (live.h - (ornamentH + nameH + yearsH)) * 0.44);
    look.ornament(doc, cx, at + mm(4), 1.3, p);
    at += ornamentH;
    at = drawBlock(nameLines, nameStyle, { x: live.x, w: live.w }, at, 'center', p.text);
    if (honoured.years) {
      const [line] = breakLines(measure, honoured.years, yearsStyle, live.w);
      drawLine(line, cx - line.width / 2, at + mm(5) + baselineOffset(yearsStyle), yearsStyle, p.muted);
    }
  }

  /** The pages of “With love from”: each a function drawing one. Names alphabetical, in one to three columns. */
  function contributorPages(): (() => void)[] {
    const names = [...contributors.keys()].sort((a, b) => a.localeCompare(b));
    if (!names.length) return [];
    const box = g.content(2);
    const headStyle: TextStyle = { face: faces.title, fallbacks: fallbacks.title, size: look.quoteSize + 9, leading: 1.2 };
    // The names as large as the theme sets its words, smaller (to 10 pt) rather than leave a name or two alone overleaf.
    const headH0 = (look.quoteSize + 9) * 1.2 + mm(12);
    let nameSize = smallest(look.quoteSize + 1);
    const colsFor = (n: number) => (n <= 18 ? 1 : n <= 60 ? 2 : 3);
    while (nameSize > 10 && names.length > colsFor(names.length) * Math.floor((box.h - headH0) / (nameSize * 1.75)) && names.length <= colsFor(names.length) * Math.floor((box.h - headH0) / (10 * 1.75))) nameSize -= 0.5;
    const nameStyle: TextStyle = { face: faces.body, fallbacks: fallbacks.body, size: nameSize, leading: 1.75 };
    const pageStyle: TextStyle = { ...bookSignatureStyle, size: smallest(Math.max(7.5, look.captionSize - 1)) };
    const cols = names.length <= 18 ? 1 : names.length <= 60 ? 2 : 3;
    const gap = mm(8);
    const colW = cols === 1 ? Math.min(box.w, mm(95)) : (box.w - gap * (cols - 1)) / cols;
    const pitch = nameStyle.size * nameStyle.leading;
    // Each entry: its name's lines, then its pages after the last (or under it when they do not fit beside).
    const entries = names.map((name) => {
      const lines = breakLines(measure, name, japaneseNames.has(name) ? { ...nameStyle, fallbacks: fallbacksFor(true).body } : nameStyle, colW);
      const pages = breakLines(measure, contributors.get(name)!.join(', '), pageStyle, colW)[0];
      const beside = lines.at(-1)!.width + mm(3) + pages.width <= colW;
      return { lines, pages, rows: lines.length + (beside ? 0 : 1), beside };
    });
    const headH = headStyle.size * 1.2 + mm(12);
    const rowsPerCol = Math.max(1, Math.floor((box.h - headH) / pitch));
    const pages: (typeof entries)[] = [];
    let current: typeof entries = [];
    let used = 0;
    for (const e of entries) {
      if (used + e.rows > rowsPerCol * cols) {
        pages.push(current);
        current = [];
        used = 0;
      }
      // An entry never splits across columns: a column's leftover rows count as used.
      const inCol = used % rowsPerCol;
      if (inCol + e.rows > rowsPerCol) used += rowsPerCol - inCol;
      if (used + e.rows > rowsPerCol * cols && current.length) {
        pages.push(current);
        current = [];
        used = 0;
      }
      current.push(e);
      used += e.rows;
    }
    if (current.length) pages.push(current);
    return pages.map((list, k) => () => {
      const n = newPage('contributors');
      content = g.content(n);
      const cx = content.x + content.w / 2;
      if (k === 0) {
        drawCentredLine(bookText.withLoveFrom, headStyle, cx, content.y + headStyle.size, p.accent, content.w);
        indexEntry = { label: bookText.withLoveFrom, page: n, japanese: false, chapter: true };
      }
      const left = content.x + (content.w - (cols * colW + (cols - 1) * gap)) / 2;
      const rows = list.reduce((m, e) => m + e.rows, 0);
      // A short list is centred under the heading; a long one fills the columns from the top.
      const top = content.y + headH + (cols === 1 ? Math.max(0, (content.h - headH - rows * pitch) / 3) : 0);
      let row = 0;
      for (const e of list) {
        if ((row % rowsPerCol) + e.rows > rowsPerCol) row += rowsPerCol - (row % rowsPerCol);
        const col = Math.floor(row / rowsPerCol);
        const x = left + col * (colW + gap);
        let at = top + (row % rowsPerCol) * pitch;
        const centred = cols === 1;
        for (const [i, line] of e.lines.entries()) {
          const last = i === e.lines.length - 1;
          const lineW = line.width + (last && e.beside ? mm(3) + e.pages.width : 0);
          const lx = centred ? x + (colW - lineW) / 2 : x;
          drawLine(line, lx, at + baselineOffset(nameStyle), nameStyle, p.text);
          if (last && e.beside) drawLine(e.pages, lx + line.width + mm(3), at + baselineOffset(nameStyle), pageStyle, smallColour);
          at += pitch;
        }
        if (!e.beside) drawLine(e.pages, centred ? x + (colW - e.pages.width) / 2 : x, at + baselineOffset(nameStyle), pageStyle, smallColour);
        row += e.rows;
      }
      folio(n);
    });
  }

  /**
   * The last page: the closing photo with the book's title under it (else the theme's ornament), then what the
   * book is and how it was made, small, at the foot.
   */
  function colophon(photo: Placed | null) {
    newPage('end');
    const t = g.trimmed();
    const small: TextStyle = { face: faces.body, fallbacks: fallbacks.body, size: smallest(8), leading: 1.5, features: LINING_FIGURES };
    const people = contributors.size;
    const lines = [
      input.title,
      bookText.memoriesFrom(memoryCount, people),
      bookText.setIn([...new Set([style.title.family, style.body.family, style.quote.family])]),
      bookText.madeWith(input.now ?? new Date()),
      ...[emojiCredit(doc)].filter((c) => c !== null),
    ];
    const footTop = t.y + t.h - mm(46);
    if (photo) {
      // The photo and its title centred in the room above the colophon.
      const [top, , bottom] = mountPadding(look.mount);
      const captionH = mm(12);
      const [roomTop, roomBottom] = [t.y + mm(20), footTop - mm(12)];
      const y0 = roomTop + Math.max(0, (roomBottom - roomTop - (photo.height + top + bottom + captionH)) / 2) + top;
      placePicture(photo, t.x + (t.w - photo.width) / 2, y0, false);
      const s: TextStyle = { face: faces.quote, fallbacks: fallbacks.quote, size: smallest(look.captionSize + 1.5), leading: 1.3 };
      drawCentredLine(input.title, s, t.x + t.w / 2, y0 + photo.height + bottom + mm(9), smallColour, t.w - mm(50));
      lines.shift();
    } else {
      look.ornament(doc, t.x + t.w / 2, t.y + t.h * 0.42, 1.1, p);
    }
    lines.forEach((text, i) => drawCentredLine(text, small, t.x + t.w / 2, footTop + i * small.size * small.leading, smallColour, t.w - mm(60)));
  }

  function notesPage() {
    const n = newPage('notes');
    content = g.content(n);
    const heading: TextStyle = { face: faces.title, fallbacks: fallbacks.title, size: 16, leading: 1.2 };
    const [line] = breakLines(measure, bookText.notes, heading, content.w);
    drawLine(line, content.x, content.y + 16, heading, p.accent);
    doc.save().lineWidth(0.4).strokeColor(p.muted).strokeOpacity(0.45);
    for (let at = content.y + mm(20); at <= content.y + content.h; at += mm(9)) doc.moveTo(content.x, at).lineTo(content.x + content.w, at).stroke();
    doc.restore();
    folio(n);
  }
}

export { luminance };

const SCRIPTS: [string, RegExp][] = [
  ['latin', /\p{Script=Latin}/u],
  ['cyrillic', /\p{Script=Cyrillic}/u],
  ['greek', /\p{Script=Greek}/u],
  ['arabic', /\p{Script=Arabic}/u],
  ['hebrew', /\p{Script=Hebrew}/u],
  ['devanagari', /\p{Script=Devanagari}/u],
  ['kana', /[\p{Script=Hiragana}\p{Script=Katakana}]/u],
  ['han', /\p{Script=Han}/u],
  ['hangul', /\p{Script=Hangul}/u],
];

/** The script most of a text's letters are written in (Japanese by its kana, as its kanji are shared with Chinese); null without letters. */
export function dominantScript(text: string): string | null {
  const counts = new Map<string, number>();
  for (const ch of text) {
    const found = SCRIPTS.find(([, re]) => re.test(ch));
    if (found) counts.set(found[0], (counts.get(found[0]) ?? 0) + 1);
  }
  if ((counts.get('kana') ?? 0) > 0) counts.set('kana', (counts.get('kana') ?? 0) + (counts.get('han') ?? 0));
  let best: string | null = null;
  for (const [script, n] of counts) if (!best || n > counts.get(best)!) best = script;
  return best;
}


/**
 * Whether a break before lines[k] leaves a paragraph's first line alone before it (a club line) or its
 * last alone after it (a widow). A paragraph of one line goes anywhere.
 */
export function splitsParagraph(lines: readonly Line[], k: number): boolean {
  const starts = (j: number) => j === 0 || lines[j].paragraphStart;
  return (starts(k - 1) && !lines[k - 1].last) || (!!lines[k].last && !starts(k));
}

/**
 * The size a quote page sets a memory's words at: the shorter the memory, the larger (a few words nearly
 * fill the measure), from 1.25 to 2.6 times the theme's size for words.
 */
/** Books of this many memories or more open with a contents page (the title page's verso). */
const CONTENTS_MIN_MEMORIES = 12;
/** A short memory set as a quote page longer than this (characters, a line or two) keeps to a theme's paper: words reversed out of a dark page are hard to read. */
const GROUND_QUOTE_CHARS = 120;
/** The pages a theme with paper (PdfLook.paper, `text`) sets on it: those its words are read on. */
const PAPER_PAGES: ReadonlySet<PageKind> = new Set<PageKind>(['verso', 'contents', 'memories', 'notes']);
/** A memory of this many words or fewer is never display type (a quote page, a tail quote) nor a page of its own, in any theme. */
const TINY_WORDS = 2;
const WORDS = new Intl.Segmenter(undefined, { granularity: 'word' });
/** How many words a memory's text holds (as a reader counts them, in any script). */
const wordCount = (text: string) => [...WORDS.segment(normalizeText(text))].filter((w) => w.isWordLike).length;
/** Letters longer than this (characters) open with a pull quote in the themes that set one. */
const PULL_QUOTE_CHARS = 1200;

/** A long letter's pull quote: its first sentence of a readable length (else its opening words), in quotation marks. */
export function pullQuoteOf(text: string): string {
  const plain = normalizeText(text).replace(/\s+/g, ' ').trim();
  const sentences = plain.split(/(?<=[.!?\u3002\uff01\uff1f])\s*/u).map((x) => x.trim()).filter(Boolean);
  const chosen = sentences.find((x) => x.length >= 40 && x.length <= 150);
  if (chosen) return `\u201C${chosen}\u201D`;
  const words = plain.slice(0, 110).split(' ');
  const cut = (words.length > 1 ? words.slice(0, -1).join(' ') : plain.slice(0, 110)).replace(/[\s,;:]+$/u, '');
  return `\u201C${cut}\u2026\u201D`;
}

export function quoteTypeSize(base: number, chars: number): number {
  return Math.min(base * 2.6, Math.max(base * 1.25, base * Math.sqrt(220 / Math.max(1, chars))));
}
