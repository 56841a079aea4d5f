/**
 * Reads a QuickTime/MP4 movie's duration from its `moov/mvhd` box while the
 * bytes stream past, holding at most a box header at a time: media data
 * (`mdat`) and every other box are skipped by their sizes, wherever the movie
 * header sits (at the front of a "fast start" file or after the media data).
 *
 * A few dozen lines of our own rather than a metadata library: the parsers
 * we tried pull from a stream at their own pace, which either stalls the
 * upload or buffers it; this one is fed, so it can never hold the upload back.
 */
export interface MovieDurationReader {
  feed(chunk: Buffer): void;
  /** Seconds once the movie header has passed; null when it was not found or is unreadable; undefined while still looking. */
  readonly seconds: number | null | undefined;
  /** The stream ended: a header not seen by now is not there. */
  end(): number | null;
}

export function createMovieDurationReader(): MovieDurationReader {
  let pending: Buffer = Buffer.alloc(0);
  let skip = 0;
  let result: number | null | undefined;

  function parse(): void {
    while (result === undefined && pending.length >= 8) {
      let size = pending.readUInt32BE(0);
      const type = pending.toString('latin1', 4, 8);
      let header = 8;
      if (size === 1) {
        if (pending.length < 16) return;
        size = Number(pending.readBigUInt64BE(8));
        header = 16;
      } else if (size === 0) {
        size = Number.POSITIVE_INFINITY; // runs to the end of the file
      }
      if (size < header) {
        result = null; // not a box structure we can follow
        return;
      }
      if (type === 'moov') {
        pending = pending.subarray(header); // step inside: its children follow
        continue;
      }
      if (type === 'mvhd') {
        if (pending.length < header + 32) return;
        const body = pending.subarray(header);
        const version = body[0];
        const timescale = version === 1 ? body.readUInt32BE(20) : body.readUInt32BE(12);
        const duration = version === 1 ? Number(body.readBigUInt64BE(24)) : body.readUInt32BE(16);
        const unknown = version === 1 ? duration === Number(0xffffffffffffffffn) : duration === 0xffffffff;
        result = timescale > 0 && !unknown ? duration / timescale : null;
        return;
      }
      if (pending.length >= size) {
        pending = pending.subarray(size);
      } else {
        skip = size - pending.length;
        pending = Buffer.alloc(0);
      }
    }
  }

  return {
    feed(chunk) {
      if (result !== undefined) return;
      if (skip >= chunk.length) {
        skip -= chunk.length;
        return;
      }
      const rest = chunk.subarray(skip);
      skip = 0;
      pending = pending.length ? Buffer.concat([pending, rest]) : rest;
      parse();
    },
    get seconds() {
      return result;
    },
    end() {
      if (result === undefined) result = null;
      return result;
    },
  };
}
