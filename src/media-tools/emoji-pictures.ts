import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * Emoji as people send them: in colour, a skin tone and a joined sequence (a
 * family, a couple, a rainbow flag) or a flag as one picture each. The
 * pictures are Twemoji's (the SVGs of the @twemoji/svg package; graphics
 * © Twitter, Inc and other contributors, CC-BY 4.0, which allows printing
 * them in a book that credits them: the colophon does), rasterised by resvg
 * to a PNG, once per emoji and process.
 *
 * The text itself is kept: the renderer draws each picture over the emoji's
 * own characters set invisibly, so copying or searching the PDF gives what
 * was written.
 */

/** How the Twemoji files are named: code points in hex, joined by '-'; U+FE0F left out unless the sequence has a ZWJ. */
export function twemojiName(cluster: string): string[] {
  const hex = (s: string) => [...s].map((c) => c.codePointAt(0)!.toString(16)).join('-');
  const bare = cluster.replace(/\uFE0F/g, '');
  // Some files keep U+FE0F where others drop it: both spellings are tried, the usual one first.
  return [...new Set(cluster.includes('\u200D') ? [hex(cluster), hex(bare)] : [hex(bare), hex(cluster)])];
}

/** Pixels on a side of an emoji picture: sharp at 300 dpi up to 30 pt type (and still small: about 4 KB). */
export const EMOJI_PICTURE_PX = 128;
/** The width an emoji takes in a line, in ems: the picture (1 em) and a little room either side. */
export const EMOJI_ADVANCE = 1.08;

const require = createRequire(import.meta.url);
let dir: string | null | undefined;
const pictures = new Map<string, Buffer | null>();
type Resvg = new (svg: string, o: { fitTo: { mode: 'width'; value: number } }) => { render(): { asPng(): Buffer } };
let resvg: Resvg | null | undefined;

function twemojiDir(): string | null {
  if (dir === undefined) {
    try {
      dir = path.dirname(require.resolve('@twemoji/svg/package.json'));
    } catch {
      dir = null;
    }
  }
  return dir;
}

/** The Twemoji SVG for one grapheme cluster, or null when there is none (it is not an emoji, or a newer one). */
export function emojiSvg(cluster: string): string | null {
  const at = twemojiDir();
  if (!at || !cluster) return null;
  for (const name of twemojiName(cluster)) {
    try {
      return readFileSync(path.join(at, `${name}.svg`), 'utf8');
    } catch {
      // not under this spelling
    }
  }
  return null;
}

/** Whether a grapheme cluster prints as a colour picture. */
export function hasEmojiPicture(cluster: string): boolean {
  return emojiPicture(cluster) !== null;
}

/** The colour picture (PNG, transparent around it) of one grapheme cluster, or null when there is none. */
export function emojiPicture(cluster: string): Buffer | null {
  if (pictures.has(cluster)) return pictures.get(cluster)!;
  const svg = emojiSvg(cluster);
  let png: Buffer | null = null;
  if (svg) {
    resvg ??= (() => {
      try {
        return (require('@resvg/resvg-js') as { Resvg: Resvg }).Resvg;
      } catch {
        return null;
      }
    })();
    if (resvg) png = Buffer.from(new resvg(svg, { fitTo: { mode: 'width', value: EMOJI_PICTURE_PX } }).render().asPng());
  }
  if (pictures.size > 4000) pictures.clear();
  pictures.set(cluster, png);
  return png;
}
