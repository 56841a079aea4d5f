import type Sharp from 'sharp';

/**
 * The most pixels (width × height) any picture may have when decoded: 100
 * megapixels. Uploads over it are refused from their header; sharp refuses to
 * decode more, so a file that got past (stored before the limit, or with a
 * header that lies) can never take a process's memory.
 */
export const MAX_IMAGE_PIXELS = 100_000_000;

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
 *
 * Every instance made through the function handed out here has
 * `limitInputPixels` of at most MAX_IMAGE_PIXELS, whatever its caller asks.
 */
export function loadSharp(): Promise<typeof Sharp> {
  return (loading ??= import('sharp').then(({ default: sharp }) => {
    sharp.cache(false);
    return limited(sharp);
  }));
}

const isOptions = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array) && !(v instanceof ArrayBuffer) && !ArrayBuffer.isView(v);

function capped(options: Record<string, unknown> | undefined): Record<string, unknown> {
  const asked = options?.limitInputPixels;
  const limit = typeof asked === 'number' && asked > 0 && asked < MAX_IMAGE_PIXELS ? asked : MAX_IMAGE_PIXELS;
  return { ...options, limitInputPixels: limit };
}

/** sharp with the pixel limit applied to every call (its static members, `cache`, `strategy`…, pass through). */
function limited(sharp: typeof Sharp): typeof Sharp {
  return new Proxy(sharp, {
    apply(target, self, args: unknown[]) {
      const [input, options] = args;
      // sharp(options) takes its input from the options (create, text) or from a stream piped in.
      if (args.length === 0) return Reflect.apply(target, self, [capped(undefined)]);
      if (args.length === 1 && isOptions(input)) return Reflect.apply(target, self, [capped(input)]);
      return Reflect.apply(target, self, [input, capped(options as Record<string, unknown> | undefined), ...args.slice(2)]);
    },
  });
}
