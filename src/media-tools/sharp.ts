import type Sharp from 'sharp';

let loading: Promise<typeof Sharp> | undefined;

/**
 * sharp (libvips), loaded with the first picture rather than at start: it is
 * one of the heaviest packages to load and most processes need it only for
 * media and exports.
 *
 * libvips' operation cache keeps decoded pixels of recent files for reuse;
 * exports and media processing read each file once, so for a book of
 * hundreds of photos the cache only adds to the memory a render holds. It is
 * off for the whole process.
 */
export function loadSharp(): Promise<typeof Sharp> {
  return (loading ??= import('sharp').then(({ default: sharp }) => {
    sharp.cache(false);
    return sharp;
  }));
}
