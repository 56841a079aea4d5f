/**
 * The test book: memories in every script a contributor may write in
 * (Latin with every diacritic, Vietnamese, Polish, Turkish, Romanian and
 * Czech among them; Greek; Cyrillic; Arabic and Hebrew; Devanagari;
 * Chinese; Japanese; Korean; emoji), from one-liners to letters of 1,500
 * words, with 0 to 5 photos of every orientation (an EXIF-turned one too): real photos of people,
 * 1,920 px phone shots cut to each shape around their faces.
 * The words are drawn from small vocabularies by a seeded generator, so the
 * book is the same on every run.
 */
import type { PdfMemory } from '../../src/exports/pdf/pdf-book.js';
import type { SubjectFindings } from '../../src/media-tools/focal-crop.js';
import { ORIENTATIONS, writePhotos, type Orientation } from './real-photos.js';

type Script = keyof typeof VOCABULARY;

const VOCABULARY = {
  vietnamese: 'bà nội cháu yêu thương nhớ những ngày hè ở quê nấu cơm kể chuyện Đà Nẵng Hương Nguyễn Thị ước mơ tuổi thơ đẹp nhất của chúng con cảm ơn rất nhiều bánh chưng ngoài vườn mưa gió hạnh phúc',
  polish: 'babcia dziękujemy zażółć gęślą jaźń łódź ćma pamiętam wakacje nad jeziorem pierogi ogród śpiewała źródło więcej świętowaliśmy każdego lata',
  turkish: 'ağabeyim ışığı söndürdü Şükrü güldü babaannem çay bahçede yaz günleri için teşekkürler öğrettin güzel hatıralar doğum günün kutlu olsun',
  romanian: 'știință și țară șapte țânțari bunica mulțumim pentru toate verile petrecute la țară învățat să gătim povești frumoase întotdeauna',
  czech: 'příliš žluťoučký kůň úpěl ďábelské ódy babička děkujeme za všechno léto na chalupě pečení buchet řeka dědeček vzpomínáme',
  greek: 'γιαγιά σ’ ευχαριστούμε για όλα θυμάμαι τα καλοκαίρια στο χωριό φαγητό τραγούδια θάλασσα αγάπη πάντα ιστορίες παιδιά',
  cyrillic: 'бабушка спасибо тебе за всё помню лето на даче пироги сад песни вечерами рассказывала истории любим тебя всегда внуки',
  arabic: 'شكرا لك يا جدتي على كل شيء أتذكر أيام الصيف في القرية الخبز الطازج الحكايات الجميلة نحبك دائما العائلة البيت الحديقة',
  hebrew: 'תודה סבתא על הכול זוכרים את הקיץ בכפר עוגות שירים סיפורים אוהבים אותך תמיד משפחה בית גינה ערב שבת',
  devanagari: 'दादी माँ सब कुछ के लिए धन्यवाद गर्मियों की छुट्टियाँ गाँव में कहानियाँ मिठाई प्यार परिवार हमेशा याद आती है',
  korean: '할머니 모든 것에 감사드려요 여름 방학 시골 이야기 김치 사랑해요 가족 항상 기억해요 맛있는 음식 노래',
  english: 'we drove to the lake every August and she packed too many sandwiches a thermos of sweet tea for the long way home taught little ones to skip stones bake bread never once raised her voice garden letters',
  // Chinese and Japanese are written without spaces: these are phrases.
  chinese: '奶奶 谢谢您 为我们 做的 一切 我们 永远 爱您 记得 小时候 您 带我 去 公园 包饺子 过年 的时候 全家 团聚 春天 花园 里 聊天',
  japanese: 'おばあちゃん いつも ありがとう 富士山 の 写真 を 見て 思い出します 夏休み に 一緒に 作った おにぎり は 本当に おいしかった です キャラメル ちょっと しょっぱい 東京 から 手紙 きっと',
};

const EMOJI = ['❤️', '🎂', '🎉', '👩‍👧‍👦', '👍🏽', '🌻'];
const SIGNATURES: Record<Script, string> = {
  vietnamese: 'Nguyễn Thị Hương',
  polish: 'Łukasz Żółć',
  turkish: 'Ünal Şahin',
  romanian: 'Ștefan Țepeș',
  czech: 'Jiří Dvořák',
  greek: 'Αλέξανδρος',
  cyrillic: 'Дмитрий',
  arabic: 'فاطمة',
  hebrew: 'אביגיל',
  devanagari: 'अनीता',
  korean: '김민준',
  english: 'Rose & Tom',
  chinese: '王小明',
  japanese: '山田花子',
};

/** A seeded generator (mulberry32). */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` words of a script in paragraphs of 60 to 120 words, with its punctuation (and a few emoji in English). */
export function writing(script: Script, count: number, seed: number): string {
  const rnd = random(seed);
  const words = VOCABULARY[script].split(' ');
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
  const cjk = script === 'chinese' || script === 'japanese';
  const [comma, stop] = script === 'japanese' ? ['、', '。'] : script === 'chinese' ? ['，', '。'] : script === 'arabic' ? ['،', '.'] : script === 'devanagari' ? [',', '।'] : [',', '.'];
  const paragraphs: string[] = [];
  let paragraph: string[] = [];
  let sentence = 0;
  for (let i = 0; i < count; i++) {
    let w = pick(words);
    if (sentence === 0 && !cjk) w = w[0].toLocaleUpperCase() + w.slice(1);
    if (script === 'english' && rnd() < 0.03) w += ` ${pick(EMOJI)}`;
    sentence++;
    const end = i === count - 1 || (sentence > 4 && rnd() < 0.18);
    if (end) {
      w += stop;
      sentence = 0;
    } else if (rnd() < 0.12) w += comma;
    // Quoted speech: brackets and closing punctuation kinsoku must keep together.
    if (script === 'japanese' && rnd() < 0.05 && !end) w = `「${w}」`;
    if (script === 'chinese' && rnd() < 0.05 && !end) w = `“${w}”`;
    paragraph.push(w);
    if (end && paragraph.length >= 60 + Math.floor(rnd() * 60)) {
      paragraphs.push(paragraph.join(cjk ? '' : ' '));
      paragraph = [];
    }
  }
  if (paragraph.length) paragraphs.push(paragraph.join(cjk ? '' : ' '));
  return paragraphs.join('\n\n');
}

/** The photos' orientations (their shapes: ORIENTATIONS): what each memory's photos are. */
export type Photo = Orientation;

/** Each photo of the book in order: its key (the file name openPicture reads) and orientation; the n-th of an orientation is `<orientation>-<n>`. */
function photoKeys(): { memory: number; key: string; orientation: Photo }[] {
  const seen = new Map<Photo, number>();
  return SPECS.flatMap((spec, memory) =>
    (spec.photos ?? []).map((orientation) => {
      const n = (seen.get(orientation) ?? 0) + 1;
      seen.set(orientation, n);
      return { memory, key: `${orientation}-${n}`, orientation };
    }),
  );
}

/**
 * Writes the book's photos into `dir` (real photos of people, cut from face-api's samples: see real-photos.ts):
 * the n-th photo of an orientation is the n-th cut of that shape, so neighbouring memories show different
 * people. Returns each photo's subject findings by key (openPicture hands them to the renderer).
 */
export async function makePhotos(dir: string): Promise<Map<string, SubjectFindings>> {
  return writePhotos(
    dir,
    photoKeys().map(({ key, orientation }) => ({ key, aspect: ORIENTATIONS[orientation], turned: orientation === 'turned' })),
  );
}

interface Spec {
  script: Script;
  words: number;
  photos?: Photo[];
  pinned?: boolean;
  recording?: boolean;
}

/** Book order: scripts alternate, so neighbours differ; lengths from one-liners to 1,500 words. */
const SPECS: Spec[] = [
  { script: 'vietnamese', words: 6, photos: ['landscape'], pinned: true },
  { script: 'polish', words: 25, photos: ['portrait', 'landscape'] },
  { script: 'turkish', words: 60 },
  { script: 'romanian', words: 20, photos: ['square', 'portrait', 'landscape'] },
  { script: 'czech', words: 120 },
  { script: 'greek', words: 300 },
  { script: 'cyrillic', words: 500, photos: ['landscape', 'portrait', 'square', 'panorama'] },
  { script: 'arabic', words: 400 },
  { script: 'hebrew', words: 250, photos: ['tall'] },
  { script: 'devanagari', words: 150 },
  { script: 'chinese', words: 500 },
  { script: 'japanese', words: 800 },
  { script: 'korean', words: 200 },
  { script: 'english', words: 1500, photos: ['landscape', 'portrait', 'square', 'panorama', 'tall'] },
  { script: 'english', words: 1 },
  { script: 'vietnamese', words: 800 },
  { script: 'arabic', words: 5, photos: ['square', 'panorama'] },
  { script: 'japanese', words: 4 },
  { script: 'chinese', words: 5 },
  { script: 'hebrew', words: 40 },
  { script: 'english', words: 8, recording: true },
  { script: 'greek', words: 4 },
  { script: 'cyrillic', words: 40, photos: ['turned'] },
  { script: 'devanagari', words: 5 },
  { script: 'korean', words: 6 },
  { script: 'english', words: 700, photos: ['portrait', 'turned'] },
  { script: 'polish', words: 350 },
  { script: 'turkish', words: 5, photos: ['landscape', 'portrait', 'square', 'panorama', 'turned'] },
  { script: 'czech', words: 15 },
  { script: 'romanian', words: 90 },
];

export interface TestMemory extends PdfMemory {
  script: Script;
}

export function testBookMemories(): TestMemory[] {
  const keys = photoKeys();
  return SPECS.map((spec, i) => ({
    id: `m${i}`,
    script: spec.script,
    text: writing(spec.script, spec.words, 1000 + i),
    signature: SIGNATURES[spec.script],
    date: new Date(Date.UTC(2026, 4, 1 + i, 10)).toISOString(),
    pinned: !!spec.pinned,
    pictures: keys.filter((k) => k.memory === i).map(({ key }) => ({ key, kind: 'photo' as const })),
    // The voice note carries a completed transcript, in another script than the memory's words.
    recordings: spec.recording ? [{ kind: 'audio' as const, url: 'https://memorybook.example/play/0123456789abcdefghijklmnopqrstuv/', duration: 83, transcript: writing('cyrillic', 45, 77) }] : [],
  }));
}
