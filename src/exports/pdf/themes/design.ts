/**
 * What a theme file declares: a printed book's design, read as a book designer briefs one. Its grid (the
 * margins, growing from the gutter to the foot; the text column, its measure and where it sits; how much of
 * a page photos take), its type (sizes, alignment, the signature line), its pacing (how many photos a
 * memory shows with its words, what the rest become, how long a run of words goes before a photo breaks
 * it, whether a long letter opens with a pull quote) and its look (mounts, frames, ornament, cover).
 */
import type { FontFace, ThemePalette } from '../../../media-tools/themes.js';
import type { MarginsMm } from '../geometry.js';
import type { Ornament } from './ornaments.js';

export type Frame = 'none' | 'hairline' | 'double' | 'corners' | 'rounded';
/** How a photo sits on its page (`tipped`: tipped in as a plate, its corners held in photo corners, a soft shadow under it). */
export type Mount = 'plain' | 'border' | 'polaroid' | 'rounded' | 'mat' | 'tape' | 'tipped';

export interface PdfLook {
  // ---- the grid ----
  /**
   * Margins inside the trim, millimetres (the gutter is added to the inner one, for the binding). As
   * Bringhurst has them: the inner the smallest, then the top, the outer, and the foot the largest.
   */
  margins: MarginsMm;
  /**
   * The measure: characters of a long memory's text face a line (a book typographer keeps 45–75). It sets
   * the text column's width, the same for every memory (in two columns, each column's).
   */
  longMeasure: number;
  /** Long memories set in one column or two (a magazine's). */
  longColumns: 1 | 2;
  /**
   * Where the text column sits in the live area when narrower than it: against the gutter, centred, against
   * the outer edge, or as a book's text block (`book`): the room it leaves split between the gutter's side and
   * the fore-edge's as the margins are, so its distance to the fold stays the smaller and no channel opens
   * down the middle of a spread.
   */
  column: 'inner' | 'centre' | 'outer' | 'book';
  /** Long text set flush on both sides (a wide measure) or ragged-right (a narrow one: no gaping spaces). */
  justify: boolean;
  /** The most of a page a memory's photos take (photo-led themes take more). */
  photoShare: number;
  /** A memory's photos span the live area, or only the text column. */
  photoWidth: 'live' | 'column';
  /**
   * The share of that width the photo box takes (1: all of it; a gallery's mat or a Swiss grid's hanging
   * picture less), and where a narrower box sits: centred, or flush with the outer edge (the text column
   * against the gutter, the picture hanging from the same top line towards the fore-edge).
   */
  photoSpan: number;
  photoAlign: 'centre' | 'outer';
  /**
   * The share of the text column a short entry's one photo takes beside its words, the words set in the rest
   * of the column beside it (a diary's print taped beside a few lines); 0: a memory's photos always go above its words.
   */
  photoBeside: number;
  /**
   * A Swiss grid's hanging photos: a memory's photos and the breathers hang from the text column's line (their
   * box from the column's inner edge to the live area's outer edge, a narrower block starting on the column's
   * left edge, captions flush left under them), rather than placed by photoSpan and photoAlign.
   */
  photoHang: boolean;
  /**
   * A Swiss grid's fixed photo widths: a photo takes the type's measure or the whole hanging box (widened and
   * cropped to the nearer when its subject and 200 ppi allow, see swiss-grid.ts gridBox), never a small box.
   */
  gridWidths: boolean;

  // ---- the type ----
  /**
   * The face long memories are read in, when not the body face upright (null): a diary's hand is for its dates,
   * names, captions and short notes; pages of a long entry in it at a size that keeps the measure read small.
   */
  textFace: FontFace | null;
  /** Size of a long memory's text face (the body face, upright, regular), points, and its leading. */
  longSize: number;
  longLeading: number;
  /** Size of a memory's words when short (display type), points (pinned memories are set a little larger), and its leading. */
  quoteSize: number;
  leading: number;
  align: 'left' | 'center';
  /**
   * A short memory alone on its page set large, scaled up the shorter it is (display type); false: at its own
   * size, quietly (a memorial's note: a line of condolence is not a poster). A sentence pulled from a letter is set large either way.
   */
  displayQuotes: boolean;
  /** Size of the signature line; set in spaced capitals when `captionCaps`. */
  captionSize: number;
  captionCaps: boolean;
  /** An opening quote mark above the words, an accent bar beside them, or nothing. */
  quoteMark: 'glyph' | 'bar' | 'none';
  /** Each memory opens with its date as a heading (a journal's dated entries), rather than the date after the name. */
  datedEntries: boolean;
  /** The book's short title over the text column: only in themes that want one, and only when short. */
  runningHead: boolean;
  /** Page numbers as `12`, `— 12 —` or in a small disc. */
  folio: 'plain' | 'dashes' | 'disc';
  /** Where the page number sits: centred under the text, at the foot's outer corner, or at the head's outer corner (a diary's). */
  folioAt: 'foot-centre' | 'foot-outer' | 'head-outer';

  // ---- the pacing ----
  /**
   * The most photos a memory shows with its words; the others are held and come later as breathers, one
   * photo to a page with its caption (no five thumbnails squeezed into a grid).
   */
  inlinePhotos: number;
  /** A breather: a photo alone on a page, captioned (`page`), or bled off every edge, its caption on the page after (`plate`). */
  breather: 'page' | 'plate';
  /**
   * A held photo too small to fill the whole page at 200 ppi still bleeds, off the edges its pixels reach (a
   * magazine's or a Swiss book's bleed): a wide one across the page's width from its head, a tall one down the
   * page's height at the fore-edge, its caption on the paper beside it. false: such a photo is a page breather.
   */
  bleedEdges: boolean;
  /** The share of the live area's width a page breather takes (a gallery leaves generous white round its print), placed as photoAlign says. */
  breatherSpan: number;
  /** Each memory opens a page of its own (a memorial's one memory a page), unless the page it would leave is mostly empty. */
  onePerPage: boolean;
  /** Pages of words only before a held photo breaks the run (at a memory's end). */
  textRun: number;
  /** A long letter opens with a pull quote: a line of it set large before it begins. */
  pullQuote: boolean;
  /**
   * A long letter opens with a drop cap: its first letter large in the display face, sunk into its first two
   * lines (a classic book's chapter opening; only where the letter opens with a Latin, Greek or Cyrillic letter).
   */
  dropCap: boolean;
  /** A memory with one sharp photo gets a plate (then three matted prints before the next): the photo alone on a page, bled off every edge, its words following. */
  fullBleed: boolean;
  /**
   * Quote pages (a short memory alone on its page, a sentence of a letter set large) at most one in so many
   * pages: 2, never two in a row; more, further apart (a short memory joins the one before on its page instead).
   */
  quoteEvery: number;
  /**
   * A memory with one photo is set as an album's spread: the photo alone on a page (bled when it is sharp
   * enough, else in the theme's mount) facing the page its words open on; its words keep their page. The photos
   * a memory holds back have a page each (no pairs).
   */
  photoSpread: boolean;
  /** Memories a page holds at most (an album's two between ornaments); 0: as many as fit. */
  perPage: number;
  /**
   * A short memory on the page a letter ends on is set as an epigraph in the room below the letter's last lines
   * (display size, between ornaments), rather than a line or two at the foot of a half-empty page.
   */
  tailQuote: boolean;
  /**
   * A gallery catalogue (`recto`): a memory's first photo is its plate, alone in its mat on a recto with its
   * caption (who sent it) under it, facing the page its words open on (a pictured memory opens on a verso
   * when it can); its other photos go with its words and after its plate. `none`: photos as inlinePhotos says.
   */
  plates: 'none' | 'recto';
  /**
   * A long letter's held photos hang at the top of its pages of words (the photo box's place: on the outer
   * side when photoAlign says so), its words going on beneath, rather than each taking a page of its own.
   */
  hangHeld: boolean;
  /** The most of the live area's height a photo hung at the top of a page of words takes (see pages/hung-photo.ts). */
  hungShare: number;
  /**
   * A memory with a photo opens a page of its own (a picture book's page): its photo large over the top of
   * the page, its words under it. The page before keeps its place unless a held photo can fill it.
   */
  pictureOpens: boolean;
  /**
   * A picture book's drawn pictures (pages/illustration.ts): where no photo is at hand, a run of so many pages of
   * words is broken by a page of a drawn scene in the theme's colours over a line of the letter being read (rather
   * than a quote page alone, after the book's longer run); 0: none.
   */
  illustrationRun: number;
  /** Three or more held photos go two to a page; without, each is a page of its own (a picture book's full-page pictures). */
  breatherPairs: boolean;
  /** A book that spans months opens each month's first memory with a chapter page of its own (a baby book's: the month's number large, its name under it), rather than a heading over the memory. */
  chapterPages: boolean;
  /**
   * A short memory never makes a quote page right after another (two plaques back to back): it shares the
   * page with the memory after it instead.
   */
  quotesApart: boolean;
  /**
   * A long letter's tail, left alone at the head of a page, is never joined by a short memory that leaves the
   * page half empty: a held photo or a line of the letter, set large, fills the page under it, and the short
   * memory opens the next.
   */
  tailFill: boolean;

  // ---- the look ----
  /**
   * The paper the book's words are read on, when the theme's own ground (its palette's background) is dark or
   * tinted: long text light on dark is hard to read. `text`: pages of running words (memories, the contents,
   * ruled notes) are set on this paper, in its ink; the ground is kept for what it flatters (the cover, quote
   * pages, photo pages and plates, the ending). `all`: every page but the cover. null: every page on the ground.
   */
  paper: { palette: ThemePalette; pages: 'text' | 'all' } | null;
  /**
   * The book opens with a frontispiece (a memorial's), its first spread: the cover photo as a portrait, large on
   * the verso, facing the person's name and, when the title or subtitle gives them, their years (see pages/frontispiece.ts).
   */
  frontispiece: boolean;
  /** A spray of fronds (see ornaments.ts) drawn in the outer head corner of each page of memories: a botanical plate's margin. */
  cornerOrnament: boolean;
  /** Each memory sits on a rounded white card (a baby book's pasted-in notes), sized to the text column. */
  cards: boolean;
  /** A photo-led memory's card is pasted over the foot of its photo (a note on a print), rather than the photo sitting on it. */
  cardOverlap: boolean;
  /** A held photo's caption written under it in the theme's display face, larger, in the text colour (a note under a pasted print), not small print. */
  handCaptions: boolean;
  cover: 'classic' | 'editorial' | 'magazine' | 'playful' | 'journal' | 'certificate' | 'gallery' | 'nursery';
  coverFrame: Frame;
  pageFrame: Frame;
  /** The frame round a page given to one short memory (a tribute set as a certificate); the pages of running words keep pageFrame. */
  quoteFrame: Frame;
  mount: Mount;
  ornament: Ornament;
  /** On a quote page set flush left, the ornaments above and below the words stand flush with their left edge (the accent bar's), not centred on the page. */
  ornamentFlush: boolean;
  /** The ornament drawn in the space between two memories on a page (else only on quote and designed pages: used sparingly). */
  ornamentBetween: boolean;
  /** Degrees a photo is turned on its page, alternately one way and the other (a print taped in by hand); 0: square. */
  photoTilt: number;
}
