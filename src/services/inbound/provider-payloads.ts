/**
 * What the providers post to the inbound webhooks, as data: one TypeBox
 * schema per provider. A signed payload that does not match (a field of the
 * wrong type, an update kind we do not read, a status callback) is answered
 * 200 and ignored, never an error the provider would retry for ever. The
 * files a message carries are read here into one shape for every provider.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';

/** A file that came with a message, to be fetched later from the provider. */
export interface InboundFileRef {
  /** Twilio's media URL, Telegram's file_id, WhatsApp's media id. */
  ref: string;
  declaredType: string | null;
  filename: string | null;
  /** What the person sent, in words for the memory and for a refusal: photo, voice note, audio, video. */
  what: 'photo' | 'voice note' | 'audio' | 'video' | 'file';
}

const Str = (max = 4096) => Type.String({ maxLength: max });
const Id = Type.String({ minLength: 1, maxLength: 512 });
const Int = Type.Integer();
const compile = <S extends TSchema>(s: S) => {
  let c: ReturnType<typeof TypeCompiler.Compile<S>> | undefined;
  return (v: unknown): v is Static<S> => (c ??= TypeCompiler.Compile(s)).Check(v);
};

// ---- Twilio (form fields of an incoming message; every value a string) ----

/** MMS carries at most 10 files. */
export const MAX_TWILIO_MEDIA = 10;
const mediaFields = Object.fromEntries(
  Array.from({ length: MAX_TWILIO_MEDIA }, (_, i) => [
    [`MediaUrl${i}`, Type.Optional(Str(2048))],
    [`MediaContentType${i}`, Type.Optional(Str(255))],
  ]).flat(),
);
export const TwilioMessageSchema = Type.Object({
  MessageSid: Type.String({ minLength: 1, maxLength: 64 }),
  From: Str(64),
  Body: Type.Optional(Str(20_000)),
  NumMedia: Type.Optional(Type.String({ pattern: '^\\d{1,2}$' })),
  SmsStatus: Type.Optional(Str(32)),
  MessageStatus: Type.Optional(Str(32)),
  ...mediaFields,
});
export type TwilioMessage = Static<typeof TwilioMessageSchema>;
export const isTwilioMessage = compile(TwilioMessageSchema);

/** A status callback (sent, delivered, failed…) is not a message someone sent us. */
export function isTwilioStatusCallback(m: TwilioMessage): boolean {
  return (m.MessageStatus !== undefined && m.MessageStatus !== 'received') || (m.SmsStatus !== undefined && m.SmsStatus !== 'received');
}

export function twilioFiles(m: TwilioMessage): InboundFileRef[] {
  const fields = m as Record<string, string | undefined>;
  const n = Math.min(Number(m.NumMedia ?? 0), MAX_TWILIO_MEDIA);
  const files: InboundFileRef[] = [];
  for (let i = 0; i < n; i++) {
    const url = fields[`MediaUrl${i}`];
    if (!url) continue;
    const type = fields[`MediaContentType${i}`] ?? null;
    files.push({ ref: url, declaredType: type, filename: null, what: whatOf(type, 'file') });
  }
  return files;
}

// ---- Telegram (a Bot API Update) ----

const TgFile = Type.Object({ file_id: Id, file_unique_id: Type.Optional(Str(512)), file_size: Type.Optional(Int), mime_type: Type.Optional(Str(255)), file_name: Type.Optional(Str(1024)) });
const TgPhotoSize = Type.Object({ file_id: Id, width: Int, height: Int, file_size: Type.Optional(Int) });
export const TelegramMessageSchema = Type.Object({
  chat: Type.Object({ id: Int, type: Str(32) }),
  from: Type.Optional(Type.Object({ id: Int, is_bot: Type.Boolean(), first_name: Str(1024), last_name: Type.Optional(Str(1024)), username: Type.Optional(Str(64)) })),
  text: Type.Optional(Str(20_000)),
  caption: Type.Optional(Str(20_000)),
  photo: Type.Optional(Type.Array(TgPhotoSize, { maxItems: 64 })),
  voice: Type.Optional(TgFile),
  audio: Type.Optional(TgFile),
  video: Type.Optional(TgFile),
  video_note: Type.Optional(TgFile),
  document: Type.Optional(TgFile),
});
export const TelegramUpdateSchema = Type.Object({ update_id: Int, message: Type.Optional(TelegramMessageSchema) });
export type TelegramMessage = Static<typeof TelegramMessageSchema>;
export type TelegramUpdate = Static<typeof TelegramUpdateSchema>;
export const isTelegramUpdate = compile(TelegramUpdateSchema);

/**
 * The files of a Telegram message: a photo at its largest size (Telegram
 * sends every size), a voice note, audio, a video, a round video note, and
 * a document that is an image (a photo sent "as a file").
 */
export function telegramFiles(m: TelegramMessage): InboundFileRef[] {
  const files: InboundFileRef[] = [];
  if (m.photo?.length) {
    const largest = m.photo.reduce((a, b) => (b.width * b.height > a.width * a.height ? b : a));
    files.push({ ref: largest.file_id, declaredType: 'image/jpeg', filename: null, what: 'photo' });
  }
  if (m.voice) files.push({ ref: m.voice.file_id, declaredType: m.voice.mime_type ?? 'audio/ogg', filename: null, what: 'voice note' });
  if (m.audio) files.push({ ref: m.audio.file_id, declaredType: m.audio.mime_type ?? null, filename: m.audio.file_name ?? null, what: 'audio' });
  if (m.video) files.push({ ref: m.video.file_id, declaredType: m.video.mime_type ?? 'video/mp4', filename: m.video.file_name ?? null, what: 'video' });
  if (m.video_note) files.push({ ref: m.video_note.file_id, declaredType: 'video/mp4', filename: null, what: 'video' });
  if (m.document && m.document.mime_type?.startsWith('image/')) {
    files.push({ ref: m.document.file_id, declaredType: m.document.mime_type, filename: m.document.file_name ?? null, what: 'photo' });
  }
  return files;
}

// ---- WhatsApp (a Cloud API webhook notification) ----

const WaMedia = Type.Object({ id: Id, mime_type: Type.Optional(Str(255)), sha256: Type.Optional(Str(128)), caption: Type.Optional(Str(20_000)), voice: Type.Optional(Type.Boolean()), filename: Type.Optional(Str(1024)) });
export const WhatsAppMessageSchema = Type.Object({
  from: Type.String({ pattern: '^[0-9]{6,15}$' }),
  id: Id,
  type: Str(32),
  text: Type.Optional(Type.Object({ body: Str(20_000) })),
  image: Type.Optional(WaMedia),
  audio: Type.Optional(WaMedia),
  voice: Type.Optional(WaMedia),
  video: Type.Optional(WaMedia),
});
export const WhatsAppPayloadSchema = Type.Object({
  object: Str(64),
  entry: Type.Array(
    Type.Object({
      changes: Type.Array(
        Type.Object({
          field: Str(64),
          value: Type.Object({
            metadata: Type.Optional(Type.Object({ phone_number_id: Str(64) })),
            contacts: Type.Optional(Type.Array(Type.Object({ wa_id: Type.Optional(Str(64)), profile: Type.Optional(Type.Object({ name: Type.Optional(Str(1024)) })) }), { maxItems: 100 })),
            messages: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 100 })),
          }),
        }),
        { maxItems: 100 },
      ),
    }),
    { maxItems: 100 },
  ),
});
export type WhatsAppMessage = Static<typeof WhatsAppMessageSchema>;
export type WhatsAppPayload = Static<typeof WhatsAppPayloadSchema>;
export const isWhatsAppPayload = compile(WhatsAppPayloadSchema);
export const isWhatsAppMessage = compile(WhatsAppMessageSchema);

/** One message we may take from a notification: the number it is for, the sender's profile name, the message itself (or null: not one we read). */
export interface WhatsAppInbound {
  phoneNumberId: string | null;
  profileName: string | null;
  /** The provider's message id (wamid), the delivery's identity. */
  id: string | null;
  message: WhatsAppMessage | null;
}

/** Every message of a notification (statuses and other fields carry none); each checked on its own, so one odd message does not hide the others. */
export function whatsAppMessages(p: WhatsAppPayload): WhatsAppInbound[] {
  const out: WhatsAppInbound[] = [];
  for (const entry of p.entry) {
    for (const change of entry.changes) {
      if (change.field !== 'messages') continue;
      const { metadata, contacts, messages = [] } = change.value;
      for (const raw of messages) {
        const message = isWhatsAppMessage(raw) ? raw : null;
        const id = raw && typeof raw === 'object' && typeof (raw as { id?: unknown }).id === 'string' ? ((raw as { id: string }).id.slice(0, 512) || null) : null;
        const contact = message ? contacts?.find((c) => c.wa_id === message.from) ?? contacts?.[0] : undefined;
        out.push({ phoneNumberId: metadata?.phone_number_id ?? null, profileName: contact?.profile?.name ?? null, id, message });
      }
    }
  }
  return out;
}

/** The text of a WhatsApp message (or a media caption) and its file, for the types we take: text, image, audio, voice, video. */
export function whatsAppContent(m: WhatsAppMessage): { text: string; files: InboundFileRef[] } | null {
  const media = (o: Static<typeof WaMedia>, what: InboundFileRef['what']): InboundFileRef => ({ ref: o.id, declaredType: o.mime_type ?? null, filename: o.filename ?? null, what });
  switch (m.type) {
    case 'text':
      return m.text ? { text: m.text.body, files: [] } : null;
    case 'image':
      return m.image ? { text: m.image.caption ?? '', files: [media(m.image, 'photo')] } : null;
    case 'video':
      return m.video ? { text: m.video.caption ?? '', files: [media(m.video, 'video')] } : null;
    case 'audio':
      return m.audio ? { text: '', files: [media(m.audio, m.audio.voice ? 'voice note' : 'audio')] } : null;
    case 'voice':
      return m.voice ? { text: '', files: [media(m.voice, 'voice note')] } : null;
    default:
      return null;
  }
}

function whatOf(type: string | null, fallback: InboundFileRef['what']): InboundFileRef['what'] {
  if (!type) return fallback;
  if (type.startsWith('image/')) return 'photo';
  if (type.startsWith('video/')) return 'video';
  if (type.startsWith('audio/')) return 'audio';
  return fallback;
}

/** Words for a memory that is only files (a memory always has text): "Photo", "2 photos", "Voice note and photo". */
export function describeFiles(files: InboundFileRef[]): string {
  const counts = new Map<string, number>();
  for (const f of files) counts.set(f.what, (counts.get(f.what) ?? 0) + 1);
  const parts = [...counts].map(([what, n]) => (n === 1 ? what : `${n} ${what}s`));
  const text = parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}` : (parts[0] ?? 'file');
  return text.charAt(0).toUpperCase() + text.slice(1);
}
