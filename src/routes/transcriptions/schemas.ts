import { Type } from '@sinclair/typebox';
import { Id, Nullable, StringEnum, Timestamp } from '../../http/schemas/common.js';
import { TRANSCRIPTION_STATUSES } from '../../services/transcriptions/transcription-repository.js';
import { TRANSCRIPT_MAX_CHARS } from '../../services/transcriptions/transcription-service.js';

export const TranscriptSegment = Type.Object(
  {
    start: Type.Number({ description: 'Seconds from the start of the recording' }),
    end: Type.Number({ description: 'Seconds from the start of the recording' }),
    text: Type.String(),
  },
  { description: 'A stretch of speech, as the provider timed it' },
);

/** The transcription of an audio or video file: its GET, its POST and PATCH answers, and its events' object. */
export const Transcription = Type.Object(
  {
    media_id: Id,
    submission_id: Id,
    status: StringEnum(TRANSCRIPTION_STATUSES, { description: 'pending → processing → completed, or failed once retries are spent (failure_reason says why)' }),
    language: Nullable(Type.String({ description: "ISO 639-1: detected by the provider, or the book's settings.language when set" })),
    text: Nullable(Type.String({ description: "The transcript: the owner's correction when edited is true, else the provider's. Null until completed" })),
    segments: Type.Array(TranscriptSegment, { description: "The provider's timed segments (kept as made; an owner's edit changes text only)" }),
    edited: Type.Boolean({ description: 'True once an owner or admin corrected the text (kept when the transcript is made again)' }),
    failure_reason: Nullable(Type.String({ description: 'Why it failed (status failed only)' })),
    etag: Type.String({ description: 'The ETag; send it as If-Match with a PATCH' }),
    created_at: Timestamp,
    completed_at: Nullable(Timestamp),
  },
  {
    $id: 'Transcription',
    title: 'Transcription',
    description: 'The transcript of a voice note or video, made by the worker through the configured transcription endpoint',
    examples: [
      {
        media_id: '01935f4e-9d10-7c44-8b2e-5a1c7e3f9b20',
        submission_id: '01935f4e-9a00-7c44-8b2e-5a1c7e3f9b11',
        status: 'completed',
        language: 'en',
        text: 'Happy birthday, Grandma! We love you.',
        segments: [
          { start: 0, end: 1.8, text: 'Happy birthday, Grandma!' },
          { start: 1.8, end: 3.2, text: 'We love you.' },
        ],
        edited: false,
        failure_reason: null,
        etag: '"2026-11-21T10:03:12.532114Z"',
        created_at: '2026-11-21T10:02:00.000000Z',
        completed_at: '2026-11-21T10:03:12.532114Z',
      },
    ],
  },
);

export const UpdateTranscriptionBody = Type.Object(
  { text: Type.String({ minLength: 1, maxLength: TRANSCRIPT_MAX_CHARS, description: 'The corrected transcript' }) },
  { additionalProperties: false, examples: [{ text: 'Happy birthday, Grandma! We all love you.' }] },
);
