import { execFile, type ExecFileException } from 'node:child_process';
import { constants } from 'node:fs';
import { access, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { loadSharp } from './sharp.js';
import type { Config } from '../config/config.js';

/**
 * ffprobe and ffmpeg as child processes: the binaries shipped in node_modules
 * (@ffmpeg-installer, @ffprobe-installer) unless FFMPEG_PATH / FFPROBE_PATH
 * name others. Every run has a timeout and honours an AbortSignal.
 */

export type MediaToolErrorCode = 'tool_unavailable' | 'tool_failed' | 'timeout';

export class MediaToolError extends Error {
  constructor(
    readonly code: MediaToolErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'MediaToolError';
  }
}

export interface MediaToolOptions {
  config: { media: Pick<Config['media'], 'ffmpegPath' | 'ffprobePath'> };
  signal?: AbortSignal;
  /** Kill the process after this long; defaults: 30 s for a probe, 120 s for a poster frame. */
  timeoutMs?: number;
}

export type MediaKind = 'video' | 'audio' | 'image';

export interface MediaProbe {
  /** null: ffprobe does not know the file (a PDF, random bytes) or finds no usable stream. */
  kind: MediaKind | null;
  /** As displayed: rotation and non-square pixels applied. null for audio and unknown files. */
  width: number | null;
  height: number | null;
  /** null for still images and when the container does not say. */
  durationSeconds: number | null;
  /** Clockwise rotation a player applies to the video (0, 90, 180, 270); only for video. */
  rotation?: 0 | 90 | 180 | 270;
  /** ffprobe's format_name, e.g. "mov,mp4,m4a,3gp,3g2,mj2"; null when unknown. */
  formatName: string | null;
  videoCodec: string | null;
  audioCodec: string | null;
}

export interface PosterFrame {
  width: number;
  height: number;
  sizeBytes: number;
}

export interface PosterFrameOptions extends MediaToolOptions {
  /** The file's probeMedia result when the caller has it already (saves a second ffprobe run). */
  probe?: MediaProbe;
}

/** Longest side of a poster frame. */
export const POSTER_MAX_SIDE = 1280;

const require = createRequire(import.meta.url);
const checked = new Set<string>();

type Tool = 'ffmpeg' | 'ffprobe';

/** The binary to run, checked once per path to be executable, with an error naming the variable to set. */
export async function resolveTool(tool: Tool, config: MediaToolOptions['config']): Promise<string> {
  const envName = tool === 'ffmpeg' ? 'FFMPEG_PATH' : 'FFPROBE_PATH';
  let file = tool === 'ffmpeg' ? config.media.ffmpegPath : config.media.ffprobePath;
  if (!file) {
    try {
      // Loaded on use: the installer packages throw on platforms they ship no binary for.
      file = (require(tool === 'ffmpeg' ? '@ffmpeg-installer/ffmpeg' : '@ffprobe-installer/ffprobe') as { path: string }).path;
    } catch (err) {
      throw new MediaToolError('tool_unavailable', `no ${tool} binary ships for this platform; set ${envName} to an ${tool} binary`, { cause: err });
    }
  }
  if (checked.has(file)) return file;
  try {
    await access(file, constants.X_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'does not exist' : 'is not executable by this user (npm may not have run its install script: chmod +x it)';
    throw new MediaToolError('tool_unavailable', `${tool} at ${file} ${why}; or set ${envName} to an ${tool} binary`, { cause: err });
  }
  checked.add(file);
  return file;
}

function run(file: string, args: string[], timeoutMs: number, signal: AbortSignal | undefined): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: timeoutMs, signal, maxBuffer: 16 * 1024 * 1024, killSignal: 'SIGKILL', windowsHide: true }, (err, stdout, stderr) => {
      if (!err) return resolve({ stdout, stderr });
      if (signal?.aborted) return reject(signal.reason ?? err);
      const e = err as ExecFileException;
      const tool = file.split(/[\\/]/).pop();
      if (e.killed && e.signal === 'SIGKILL') return reject(new MediaToolError('timeout', `${tool} took longer than ${timeoutMs} ms`, { cause: err }));
      reject(new MediaToolError('tool_failed', `${tool} failed: ${lastLine(stderr) || e.message}`, { cause: err }));
    });
  });
}

function failedToZero(err: unknown): number {
  if (err instanceof MediaToolError && err.code === 'tool_failed') return 0;
  throw err;
}

function lastLine(s: string): string {
  return s.trim().split('\n').pop()?.trim() ?? '';
}

interface FfprobeStream {
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  sample_aspect_ratio?: string;
  duration?: string;
  nb_frames?: string;
  disposition?: { attached_pic?: number };
  tags?: Record<string, string>;
  side_data_list?: Array<{ side_data_type?: string; rotation?: number }>;
}

interface FfprobeOutput {
  streams?: FfprobeStream[];
  format?: { format_name?: string; duration?: string };
}

/** Demuxers and codecs of still images: ffprobe reads them as a one-frame "video". */
const IMAGE_FORMAT = /(^|,)(image2|[a-z0-9]+_pipe|gif|apng|webp)(,|$)/;
const IMAGE_CODECS = new Set(['mjpeg', 'png', 'webp', 'gif', 'bmp', 'tiff', 'apng', 'jpeg2000', 'jpegls']);
/** Decoders that render any text file as "video" (ffprobe guesses them from the file name): not media to us. */
const TEXT_AS_VIDEO = new Set(['ansi', 'bintext', 'xbin', 'idf']);

/**
 * What a file is, by ffprobe: kind, displayed size, duration, rotation.
 * A file ffprobe cannot read gives kind null; a missing binary, a timeout or an
 * abort throws.
 */
export async function probeMedia(inputPath: string, options: MediaToolOptions): Promise<MediaProbe> {
  await stat(inputPath); // a missing input is the caller's error, not an unknown format
  const ffprobe = await resolveTool('ffprobe', options.config);
  let out: FfprobeOutput;
  try {
    const { stdout } = await run(
      ffprobe,
      ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', '--', inputPath],
      options.timeoutMs ?? 30_000,
      options.signal,
    );
    out = JSON.parse(stdout) as FfprobeOutput;
  } catch (err) {
    // ffprobe exits non-zero on data it cannot demux: that is an answer ("not media"), not a failure.
    if (err instanceof MediaToolError && err.code === 'tool_failed') return unknownMedia();
    throw err;
  }
  return describe(out);
}

function unknownMedia(): MediaProbe {
  return { kind: null, width: null, height: null, durationSeconds: null, formatName: null, videoCodec: null, audioCodec: null };
}

function describe(out: FfprobeOutput): MediaProbe {
  const streams = out.streams ?? [];
  const formatName = out.format?.format_name ?? null;
  const pictures = streams.filter((s) => s.codec_type === 'video' && !s.disposition?.attached_pic && !TEXT_AS_VIDEO.has(s.codec_name ?? '') && s.width && s.height);
  const audio = streams.find((s) => s.codec_type === 'audio');
  const video = pictures[0];
  const result: MediaProbe = { ...unknownMedia(), formatName, audioCodec: audio?.codec_name ?? null };
  if (video) {
    const still = (formatName !== null && IMAGE_FORMAT.test(formatName)) || (IMAGE_CODECS.has(video.codec_name ?? '') && !audio && (video.nb_frames ?? '1') === '1');
    const rotation = still ? 0 : rotationOf(video);
    let width = video.width!;
    let height = video.height!;
    const sar = /^(\d+):(\d+)$/.exec(video.sample_aspect_ratio ?? '');
    if (sar && Number(sar[1]) > 0 && Number(sar[2]) > 0 && sar[1] !== sar[2]) width = Math.round((width * Number(sar[1])) / Number(sar[2]));
    if (rotation === 90 || rotation === 270) [width, height] = [height, width];
    result.kind = still ? 'image' : 'video';
    result.width = width;
    result.height = height;
    result.videoCodec = video.codec_name ?? null;
    if (!still) {
      result.rotation = rotation;
      result.durationSeconds = durationOf(out, streams);
    }
    return result;
  }
  if (audio) {
    result.kind = 'audio';
    result.durationSeconds = durationOf(out, streams);
  }
  return result;
}

function durationOf(out: FfprobeOutput, streams: FfprobeStream[]): number | null {
  const fromFormat = Number(out.format?.duration);
  if (Number.isFinite(fromFormat) && fromFormat > 0) return fromFormat;
  const fromStreams = streams.map((s) => Number(s.duration)).filter((d) => Number.isFinite(d) && d > 0);
  return fromStreams.length ? Math.max(...fromStreams) : null;
}

function rotationOf(s: FfprobeStream): 0 | 90 | 180 | 270 {
  // ffprobe ≥ 5 reports the display matrix (counter-clockwise degrees); older ones a clockwise "rotate" tag.
  const matrix = s.side_data_list?.find((d) => typeof d.rotation === 'number');
  const clockwise = matrix ? -(matrix.rotation as number) : Number(s.tags?.rotate ?? 0);
  const r = ((Math.round(clockwise / 90) * 90) % 360 + 360) % 360;
  return r as 0 | 90 | 180 | 270;
}

/**
 * Writes a JPEG poster frame of a video to outputPath: the frame at 10% of the
 * duration or 1 s, whichever is earlier (the very first frame is often black),
 * or the first frame when seeking gives none. Upright (rotation applied by
 * ffmpeg's autorotate) and at most POSTER_MAX_SIDE px on the long side.
 */
export async function extractPosterFrame(inputPath: string, outputPath: string, options: PosterFrameOptions): Promise<PosterFrame> {
  const probe = options.probe ?? (await probeMedia(inputPath, options));
  if (probe.kind !== 'video') throw new MediaToolError('tool_failed', `no video stream to take a poster frame from (${probe.kind ?? 'unknown format'})`);
  const ffmpeg = await resolveTool('ffmpeg', options.config);
  const timeoutMs = options.timeoutMs ?? 120_000;
  const at = probe.durationSeconds ? Math.min(probe.durationSeconds * 0.1, 1) : 0;
  const filters = [
    // Square the pixels first so the aspect ratio survives, then fit into the box without upscaling.
    'scale=trunc(iw*sar):ih',
    'setsar=1',
    `scale='min(${POSTER_MAX_SIDE},iw)':'min(${POSTER_MAX_SIDE},ih)':force_original_aspect_ratio=decrease`,
  ].join(',');
  const attempt = async (seconds: number) => {
    await rm(outputPath, { force: true });
    const seek = seconds > 0 ? ['-ss', seconds.toFixed(3)] : [];
    await run(
      ffmpeg,
      ['-v', 'error', '-nostdin', '-y', ...seek, '-i', inputPath, '-map', '0:v:0', '-frames:v', '1', '-an', '-sn', '-dn', '-vf', filters, '-pix_fmt', 'yuvj420p', '-q:v', '3', '-f', 'image2', '-c:v', 'mjpeg', outputPath],
      timeoutMs,
      options.signal,
    );
    return stat(outputPath).then((s) => s.size, () => 0);
  };
  // Seeking past the last decodable frame writes nothing: very short or oddly cut clips fall back to frame one.
  let size = at > 0 ? await attempt(at).catch(failedToZero) : 0;
  if (size === 0) size = await attempt(0);
  if (size === 0) throw new MediaToolError('tool_failed', 'ffmpeg wrote no poster frame');
  const sharp = await loadSharp();
  const meta = await sharp(outputPath).metadata();
  return { width: meta.width!, height: meta.height!, sizeBytes: size };
}
