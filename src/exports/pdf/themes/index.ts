/**
 * The eleven printed-book designs, one file each (see design.ts for what a theme declares).
 */
import type { Theme } from '../../../media-tools/themes.js';
import { babyFirstYear } from './baby_first_year.js';
import { botanicalLuxe } from './botanical_luxe.js';
import { dailyJournal } from './daily_journal.js';
import type { PdfLook } from './design.js';
import { editorialNoir } from './editorial_noir.js';
import { elegantClassic } from './elegant_classic.js';
import { heirloomGallery } from './heirloom_gallery.js';
import { memorialService } from './memorial_service.js';
import { modernClean } from './modern_clean.js';
import { retirementTribute } from './retirement_tribute.js';
import { storybook } from './storybook.js';
import { weddingAlbum } from './wedding_album.js';

export const PDF_LOOKS: Readonly<Record<Theme, PdfLook>> = Object.freeze({
  elegant_classic: elegantClassic,
  modern_clean: modernClean,
  storybook,
  memorial_service: memorialService,
  wedding_album: weddingAlbum,
  baby_first_year: babyFirstYear,
  daily_journal: dailyJournal,
  retirement_tribute: retirementTribute,
  botanical_luxe: botanicalLuxe,
  heirloom_gallery: heirloomGallery,
  editorial_noir: editorialNoir,
} satisfies Record<Theme, PdfLook>);
