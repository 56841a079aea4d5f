/**
 * The sender's own words from an email's text, as the maintained reply
 * parsers find them (crisp-oss/email-reply-parser's and mailgun/talon's
 * attribution, header-block and signature lists, in the languages of the
 * mail clients people use), with what was cut kept beside them:
 *
 * - quoted history: `>` lines with the attribution above them ("On … wrote:",
 *   wrapped over up to three lines, in twenty languages), and everything
 *   from an original-message rule or a header block (From:/Sent:/To:/Subject:
 *   or Date: first, in those languages) to the end; words written under or
 *   between `>` quotes are the sender's too (bottom posting);
 * - a signature: after a `-- ` delimiter, or a mobile client's footer
 *   ("Sent from my iPhone") when it is a short last line;
 * - a forward header: a forwarded message (Gmail's and Outlook's rules,
 *   Apple's "Begin forwarded message:", an Outlook header block of a Fwd:
 *   mail) keeps its text and its original sender and date under the
 *   forwarder's own note.
 *
 * Linear in its input by construction: the text is read line by line, no
 * regular expression ever runs on untrusted text, and each line is looked at
 * through its first MAX_LOOK characters only (string comparisons, indexOf),
 * so a megabyte line of spaces, `<`, `@` or `>` costs what reading it costs.
 */

/** How much of a line the classifiers look at: every attribution, rule and header line real clients write is shorter. */
const MAX_LOOK = 400;

export interface Trimmed {
  quoted: string | null;
  signature: string | null;
  forward_header: string | null;
}

export interface OwnWords {
  text: string;
  trimmed: Trimmed;
}

/** Header names of a quoted message's header block, by what they say, in the clients' languages (lower-case). */
const HEADER_KINDS: Record<string, 'from' | 'date' | 'to' | 'subject' | 'cc'> = {};
const kinds: [('from' | 'date' | 'to' | 'subject' | 'cc'), string[]][] = [
  ['from', ['from', 'de', 'von', 'van', 'da', 'från', 'fra', 'lähettäjä', 'od', 'от', 'від', 'kimden', 'gönderen', '差出人', '发件人', '發件人', '寄件者', '보낸 사람', '보낸사람', 'từ', 'người gửi', 'afzender', 'mittente', 'remetente', 'expéditeur', 'feladó', 'nadawca', 'odesílatel']],
  ['date', ['message du', 'elküldve', 'gönderim']],
  ['date', ['sent', 'date', 'datum', 'data', 'fecha', 'envoyé', 'envoyé le', 'gesendet', 'verzonden', 'skickat', 'sendt', 'lähetetty', 'wysłano', 'wysłane', 'odesláno', 'отправлено', 'дата', 'надіслано', 'tarih', 'gönderildi', 'gönderilme tarihi', '送信日時', '日付', '发送时间', '日期', '傳送時間', '寄件日期', '보낸 날짜', '날짜', 'ngày', 'đã gửi', 'ngày gửi', 'enviado', 'enviada', 'enviado el', 'inviato', 'päivämäärä', 'dato', 'sent at', 'enviado em']],
  ['to', ['to', 'à', 'a', 'an', 'para', 'aan', 'till', 'til', 'vastaanottaja', 'do', 'komu', 'кому', 'kime', 'alıcı', '宛先', '收件人', '收件者', '받는 사람', '받는사람', 'đến', 'tới', 'per', 'destinatario', 'destinataire', 'címzett', 'adresat', 'příjemce']],
  ['subject', ['subject', 'objet', 'betreff', 'asunto', 'oggetto', 'assunto', 'onderwerp', 'ämne', 'emne', 'aihe', 'temat', 'předmět', 'тема', 'konu', '件名', '主题', '主旨', '제목', 'chủ đề', 'tiêu đề', 'tárgy', 'sujet']],
  ['cc', ['cc', 'kopie', 'kopia', 'копия', 'копія', '抄送', '副本', '참조', 'bilgi', 'cc/bcc', 'kopio', 'kópia', 'copie à', 'másolat']],
];
for (const [kind, words] of kinds) for (const w of words) HEADER_KINDS[w] = kind;

/** Rules that open quoted history: `-----Original Message-----` and its translations (lower-case, between the dashes). */
const ORIGINAL_RULES = new Set([
  'original message', 'reply message', 'oprindelig meddelelse', 'oprindelig besked', 'antwort nachricht', 'ursprüngliche nachricht', "message d'origine", 'message original',
  'mensaje original', 'messaggio originale', 'mensagem original', 'oorspronkelijk bericht', 'origineel bericht', 'ursprungligt meddelande', 'opprinnelig melding',
  'alkuperäinen viesti', 'oryginalna wiadomość', 'wiadomość oryginalna', 'původní zpráva', 'исходное сообщение', 'оригинальное сообщение', 'оригінальне повідомлення', 'вихідне повідомлення',
  'orijinal mesaj', 'özgün ileti', 'orijinal ileti', '元のメッセージ', '原始邮件', '原始郵件', '원본 메시지', 'thư gốc', 'tin nhắn gốc',
]);

/** Rules and lines that open a forwarded message (lower-case, without dashes or the closing colon). */
const FORWARD_RULES = new Set([
  'forwarded message', 'forwarded message follows', 'weitergeleitete nachricht', 'message transféré', 'mensaje reenviado', 'messaggio inoltrato', 'mensagem encaminhada', 'mensagem reencaminhada',
  'doorgestuurd bericht', 'vidarebefordrat meddelande', 'videresendt meddelelse', 'videresendt besked', 'videresendt melding', 'välitetty viesti', 'przekazana wiadomość',
  'wiadomość przekazana', 'přeposlaná zpráva', 'пересылаемое сообщение', 'пересланное сообщение', 'переслане повідомлення', 'пересланий лист', 'iletilen mesaj', 'iletilen ileti',
  '転送されたメッセージ', '转发的邮件', '轉寄的郵件', '转发邮件', '전달된 메시지', 'thư được chuyển tiếp', 'tin nhắn được chuyển tiếp',
  'begin forwarded message', 'anfang der weitergeleiteten nachricht', 'début du message réexpédié', 'début du message transféré', 'inicio del mensaje reenviado', 'comienzo del mensaje reenviado',
  'inizio messaggio inoltrato', 'início da mensagem reencaminhada', 'início da mensagem encaminhada', 'begin doorgestuurd bericht', 'vidarebefordrat brev', 'begynnelse på videresendt melding',
  'välitetty viesti alkaa', 'początek przekazywanej wiadomości', 'začátek přeposlané zprávy', 'начало переадресованного сообщения', 'початок пересланого повідомлення', 'iletilen ileti başlangıcı',
  '以下是转发的邮件', '전달된 메시지 시작', 'bắt đầu tin nhắn được chuyển tiếp',
  // Turkish capital İ lower-cases with a combining dot.
  'İletilen mesaj'.toLowerCase(), 'İletilen ileti'.toLowerCase(), 'İletilen ileti başlangıcı'.toLowerCase(),
]);

/** Subject prefixes of a forward, lower-case with their colon. */
const FORWARD_SUBJECTS = ['fwd:', 'fw:', 'fwd :', 'fw :', 'wg:', 'tr:', 'tr :', 'rv:', 'enc:', 'i:', 'doorst:', 'vs:', 'vb:', 'vl:', 'pd:', 'fs:', 'pvz:', 'пересл:', 'fwd：', 'fw：', '转发:', '转发：', '轉寄:', '轉寄：', '전달:', 'i̇lt:', 'ilt:', 'İlt:'];

/** Verbs that end an attribution ("… wrote:"), lower-case, in the clients' languages. */
const ATTRIBUTION_VERBS = [
  'wrote', 'writes', 'a écrit', 'escribió', 'escribio', 'ha scritto', 'escreveu', 'schreef', 'het volgende geschreven', 'heeft het volgende geschreven', 'skrev', 'skrev följande', 'skrev følgende',
  'kirjoitti', 'napisał', 'napisała', 'napisał(a)', 'pisze', 'napsal', 'napsala', 'napsal(a)', 'написал', 'написала', 'написал(а)', 'пишет', 'написав', 'написала', 'пише', 'yazdı',
  'のメッセージ', 'は書きました', 'が書きました', '写道', '寫道', '작성', '님이 작성', '님이 작성:', 'đã viết', 'viết', 'schrieb', 'ecrit', 'écrit', 'írta', 'napisao', 'napisala', 'scrisse',
];
/** Words an attribution opens with ("On …", "Le …", "Am …"), lower-case with their space. */
const ATTRIBUTION_OPENERS = ['on ', 'le ', 'am ', 'el ', 'il ', 'em ', 'op ', 'den ', 'w dniu', 'dnia ', 'dne ', '在 ', '在', 'pe ', 'ma ', 'ti ', 'ke ', 'to ', 'la ', 'su ', 'vào ', 'lúc ', 'näin kirjoitti', '-----'];

/** Lines a mobile or webmail client adds under a message, lower-case openings. */
const MOBILE_OPENINGS = [
  'sent from my ', 'sent from ', 'get outlook for ', 'envoyé de mon ', 'envoyé depuis ', 'envoyé à partir de ', 'von meinem ', 'gesendet von ', 'enviado desde ', 'enviado de mi ', 'enviado do meu ',
  'enviado a partir do ', 'inviato da ', 'verzonden vanaf ', 'verstuurd vanaf ', 'verzonden met ', 'skickat från ', 'sendt fra ', 'lähetetty ', 'wysłane z ', 'wysłano z ', 'odesláno z ', 'отправлено с ',
  'отправлено из ', 'надіслано з ', 'iphone\'umdan gönderildi', 'iphone’umdan gönderildi', 'gönderildi', 'iphoneから送信', '从我的iphone发送', '发自我的', '發自我的', '从我的', 'iphone에서 보냄', '보낸 사람:', 'được gửi từ ',
  'gửi từ ', 'sent wirelessly from my ', 'envoyé sans fil par mon ', 'télécharger outlook pour ', 'scarica outlook per ', 'outlook for ', 'sent via ', 'sent with ',
];
/** Mobile footers that end in their client's name (Japanese, Korean, Turkish word order). */
const MOBILE_ENDINGS = ['から送信', '에서 보냄', 'umdan gönderildi', "'dan gönderildi", ' gesendet', 'から送信しました'];

const isBlank = (line: string) => line.trim() === '';
const look = (line: string) => (line.length > MAX_LOOK ? line.slice(0, MAX_LOOK) : line).trim();
/** A `>` line is quoted, except a `>>> … <<<` decoration around a link (talon keeps it too). */
const isQuoted = (line: string) => {
  const t = line.trimStart();
  return t.startsWith('>') && !(t.startsWith('>>>') && t.trimEnd().endsWith('<<<'));
};

/** Strips characters from both ends while they are in `chars` (no pattern). */
function strip(s: string, chars: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && chars.includes(s[a])) a++;
  while (b > a && chars.includes(s[b - 1])) b--;
  return s.slice(a, b);
}

/** The kind of a header line ("From: …", "*Sent:* …", "De : …"), or null. */
function headerKind(line: string): ('from' | 'date' | 'to' | 'subject' | 'cc') | null {
  const t = look(line);
  let colon = t.indexOf(':');
  const wide = t.indexOf('：');
  if (colon < 0 || (wide >= 0 && wide < colon)) colon = wide;
  if (colon <= 0 || colon > 40) return null;
  const name = strip(t.slice(0, colon), ' *\t').toLowerCase();
  return HEADER_KINDS[name] ?? null;
}

/** The header block that starts at line i (at least two header lines of two kinds, one a sender or a date), as [start, end) — or null. */
function headerBlockAt(lines: string[], i: number): { end: number; subject: string | null; from: string | null; date: string | null } | null {
  const first = headerKind(lines[i]);
  if (!first || first === 'cc') return null;
  const seen = new Set<string>([first]);
  let end = i + 1;
  let headers = 1;
  // A block's lines follow one another; a long value may wrap onto a line of its own.
  for (let j = i + 1; j < lines.length && j <= i + 8; j++) {
    if (isBlank(lines[j])) break;
    const k = headerKind(lines[j]);
    if (k) {
      seen.add(k);
      headers++;
    } else if (j - end > 1) break;
    end = j + 1;
  }
  if (headers < 2 || seen.size < 2 || !(seen.has('from') || seen.has('date'))) return null;
  let subject: string | null = null;
  let from: string | null = null;
  let date: string | null = null;
  for (let j = i; j < end; j++) {
    const k = headerKind(lines[j]);
    if (k === 'subject' && subject === null) subject = valueOf(lines[j]);
    if (k === 'from' && from === null) from = valueOf(lines[j]);
    if (k === 'date' && date === null) date = valueOf(lines[j]);
  }
  return { end, subject, from, date };
}

function valueOf(line: string): string {
  const t = look(line);
  let colon = t.indexOf(':');
  const wide = t.indexOf('：');
  if (colon < 0 || (wide >= 0 && wide < colon)) colon = wide;
  return strip(t.slice(colon + 1), ' *\t');
}

/** A rule line's title (`-----Original Message-----` → `original message`), or null when the line is not a rule. */
function ruleTitle(line: string): string | null {
  const t = look(line);
  if (!(t.startsWith('--') || t.startsWith('__') || t.startsWith('==') || t.startsWith('* ') || t.startsWith('–'))) return null;
  return strip(t, ' -_=*–').toLowerCase();
}

/** Whether line i is Outlook's underscore rule (followed by a header block) or an original-message rule. */
function originalRuleAt(lines: string[], i: number): boolean {
  const title = ruleTitle(lines[i]);
  if (title === null) return false;
  if (ORIGINAL_RULES.has(title)) return true;
  if (title === '' && look(lines[i]).length >= 4) {
    let j = i + 1;
    while (j < lines.length && isBlank(lines[j])) j++;
    return j < lines.length && headerKind(lines[j]) !== null;
  }
  return false;
}

/** Whether line i opens a forwarded message (a forward rule, Apple's "Begin forwarded message:"). */
function forwardMarkerAt(lines: string[], i: number): boolean {
  const t = look(lines[i]);
  const title = strip(t, ' -_=*–:：').toLowerCase();
  return FORWARD_RULES.has(title);
}

/** Whether `s` (lower-case) ends with an attribution verb and a colon, or has one before a closing `>:` / `]:`. */
function endsLikeAttribution(s: string): boolean {
  let core = s;
  const hadColon = core.endsWith(':') || core.endsWith('：');
  core = strip(core, ' :：-');
  for (const v of ATTRIBUTION_VERBS) {
    if (core.endsWith(v)) {
      const before = core.length - v.length;
      // The verb must be a word of its own (not "rewrote"), except in languages written without spaces.
      if (before === 0 || !/[a-zà-ÿа-яё]/i.test(core[before - 1]) || v.charCodeAt(0) > 0x2e80) return hadColon || v === 'wrote' || v === 'writes';
    }
  }
  // German and Dutch name the writer after the verb: "Am … schrieb Ann <ann@example.com>:".
  if (hadColon && (core.endsWith('>') || core.endsWith(']') || core.length < MAX_LOOK)) {
    for (const v of ['schrieb', 'schreef', 'skrev', 'écrit', 'wrote', 'napisał', 'написал', 'napsal', 'kirjoitti', 'escribió', 'escreveu', 'yazdı']) {
      if (core.includes(` ${v} `)) return true;
    }
  }
  return false;
}

/** Whether a candidate attribution (lines joined, lower-case) reads as one: an opener, a date or an address, and the verb at its end. */
function isAttribution(s: string): boolean {
  if (!endsLikeAttribution(s)) return false;
  if (ATTRIBUTION_OPENERS.some((o) => s.startsWith(o))) return true;
  // Without a known opener: it must name a date (digits) or an address.
  let digits = 0;
  for (let k = 0; k < s.length && digits < 2; k++) if (s.charCodeAt(k) >= 48 && s.charCodeAt(k) <= 57) digits++;
  return digits >= 2 || s.includes('@');
}

function nextIsQuote(lines: string[], j: number): boolean {
  let k = j;
  while (k < lines.length && k < j + 3 && isBlank(lines[k])) k++;
  return k < lines.length && isQuoted(lines[k]);
}

/** "30.09.2017, 18.30, "Ann" <ann@example.com>:" and "2017-11-24 16:32 GMT+01:00 Ann <ann@example.com>:": a date, an address, a colon. */
function datedAddressLine(s: string): boolean {
  if (!(s.endsWith('>:') || s.endsWith('>：'))) return false;
  if (!s.includes('@') || !s.includes('<')) return false;
  let digits = 0;
  for (let k = 0; k < s.length && k < 40; k++) if (s.charCodeAt(k) >= 48 && s.charCodeAt(k) <= 57) digits++;
  return digits >= 6;
}

/** "2011/4/7 Ann <ann@example.com>" above a quote (older Gmail): a date, a name, an address, no verb. */
function datedAddressAbove(s: string): boolean {
  if (s.length > 200 || !s.endsWith('>') || !s.includes('@') || !s.includes('<')) return false;
  if (!(s.charCodeAt(0) >= 48 && s.charCodeAt(0) <= 57)) return false;
  let digits = 0;
  for (let k = 0; k < s.length && k < 40; k++) if (s.charCodeAt(k) >= 48 && s.charCodeAt(k) <= 57) digits++;
  return digits >= 5;
}

/**
 * The sender's words in front of an English attribution on the same line
 * ("reply On Wed, Apr 4, 2012 at 3:59 PM, bob@example.com wrote:", "reply--- On …"),
 * or '' when the line opens with the attribution.
 */
function wordsBeforeAttribution(line: string): string {
  const t = look(line);
  const lower = t.toLowerCase();
  if (ATTRIBUTION_OPENERS.some((o) => strip(lower, '- ').startsWith(o))) return '';
  let k = lower.indexOf('on ', 1);
  while (k !== -1 && lower[k - 1] !== ' ' && lower[k - 1] !== '-') k = lower.indexOf('on ', k + 1);
  if (k === -1 || !endsLikeAttribution(strip(lower.slice(k), '- '))) return '';
  let end = k;
  while (end > 0 && (t[end - 1] === ' ' || t[end - 1] === '-')) end--;
  return t.slice(0, end);
}

/** A piece of a link the quoting client wrapped out of its `>` line ("_nonce=3dd518)", " (http://…) >"): one token with "://" or "=". */
function isWrappedLinkPiece(line: string): boolean {
  const core = strip(look(line), ' >');
  if (core === '' || core.includes(' ') || core.includes('\t')) return false;
  return core.includes('://') || core.includes('=');
}

/** The attribution that starts at line i, wrapped over up to three lines: the number of lines it takes, or 0. */
function attributionAt(lines: string[], i: number): number {
  if (isBlank(lines[i]) || isQuoted(lines[i])) return 0;
  let joined = '';
  for (let n = 1; n <= 3 && i + n - 1 < lines.length; n++) {
    const l = lines[i + n - 1];
    if (n > 1 && (isBlank(l) || (isQuoted(l) && look(l) !== '>:'))) break;
    joined = (joined ? `${joined} ` : '') + look(l);
    if (joined.length > MAX_LOOK * 2) break;
    const lower = strip(joined.toLowerCase(), '- ');
    if (isAttribution(lower) || datedAddressLine(lower)) return n;
    // "Ann Example пишет:" / "---- John Smith wrote ----": a short line with the verb, between dashes or right above a quote.
    if (n === 1 && datedAddressAbove(lower) && nextIsQuote(lines, i + 1)) return 1;
    if (n === 1 && lower.length <= 120 && endsLikeAttribution(lower) && (joined.startsWith('-') || nextIsQuote(lines, i + 1))) return 1;
    // The second and third line only continue an attribution the first line opened.
    if (n === 1 && !ATTRIBUTION_OPENERS.some((o) => lower.startsWith(o)) && !lower.includes('@') && !/\d/.test(lower.slice(0, 40))) return 0;
  }
  return 0;
}

/** Whether a line is a mobile or webmail client's footer ("Sent from my iPhone"): short, without a sentence's punctuation. */
function isMobileFooter(line: string): boolean {
  const t = look(line);
  const lower = t.toLowerCase();
  // BlackBerry's carrier footers run longer ("Sent wirelessly from my BlackBerry device on the Bell network.").
  const blackBerry = lower.includes('blackberry');
  if (t.length > (blackBerry ? 100 : 60) || t.length < 6) return false;
  if (!MOBILE_OPENINGS.some((o) => lower.startsWith(o)) && !MOBILE_ENDINGS.some((e) => lower.endsWith(e))) return false;
  if (blackBerry) return true;
  // "Sent from my desk, is much easier then my mobile phone." is a sentence, not a footer.
  return !lower.includes(',') && !(lower.endsWith('.') && lower.split(' ').length > 6);
}

const isSignatureRule = (line: string) => {
  const t = line.length > 8 ? '' : line.trimEnd();
  return t === '--' || t === '-- ' || t === '—' || t === '__' || t === '___' || t === '---' || t === '‐‐';
};

/** Joins kept lines: trailing spaces off, no more than one blank line in a row, no blank lines at the ends. */
function tidy(lines: string[]): string {
  const out: string[] = [];
  let blank = false;
  for (const raw of lines) {
    const line = raw.trimEnd();
    if (line === '') {
      blank = out.length > 0;
      continue;
    }
    if (blank) out.push('');
    blank = false;
    out.push(line);
  }
  return out.join('\n');
}

interface Cut {
  kept: string[];
  quoted: string[];
  signature: string[];
}

/** Own words of a reply (no forward): quoted runs out, bottom posting kept, a signature off. */
function replyWords(lines: string[], from: number, to: number): Cut {
  const kept: string[] = [];
  const quoted: string[] = [];
  const signature: string[] = [];
  let words = false;
  let i = from;
  while (i < to) {
    const line = lines[i];
    if (isQuoted(line)) {
      quoted.push(line);
      i++;
      continue;
    }
    if (i > from && i + 1 < to && isQuoted(lines[i - 1]) && isQuoted(lines[i + 1]) && isWrappedLinkPiece(line)) {
      quoted.push(line);
      i++;
      continue;
    }
    const attribution = attributionAt(lines, i);
    if (attribution) {
      // Followed by `>` lines: a quote the sender may write under (bottom posting). Otherwise the rest is history.
      let j = i + attribution;
      while (j < to && isBlank(lines[j])) j++;
      if (j < to && isQuoted(lines[j])) {
        const before = attribution === 1 ? wordsBeforeAttribution(line) : '';
        if (before) {
          kept.push(before);
          words = true;
        }
        for (let k = i; k < j; k++) quoted.push(lines[k]);
        i = j;
        continue;
      }
      for (let k = i; k < to; k++) quoted.push(lines[k]);
      break;
    }
    if (originalRuleAt(lines, i) || headerBlockAt(lines, i)) {
      for (let k = i; k < to; k++) quoted.push(lines[k]);
      break;
    }
    // A rule over the only words there are ("--\nRoman") is not a signature's.
    if (words && isSignatureRule(line)) {
      // The signature runs to the next quote or history; what follows that is history.
      let k = i;
      while (k < to && !isQuoted(lines[k]) && !(k > i && (attributionAt(lines, k) || originalRuleAt(lines, k) || headerBlockAt(lines, k)))) signature.push(lines[k++]);
      for (; k < to; k++) quoted.push(lines[k]);
      break;
    }
    if (isMobileFooter(line)) {
      // Only as a last line: blank lines, then nothing or history.
      let j = i + 1;
      while (j < to && isBlank(lines[j])) j++;
      if (j >= to || isQuoted(lines[j]) || isMobileFooter(lines[j]) || attributionAt(lines, j) || originalRuleAt(lines, j) || headerBlockAt(lines, j)) {
        signature.push(line);
        i = j;
        continue;
      }
    }
    kept.push(line);
    if (!isBlank(line)) words = true;
    i++;
  }
  return { kept, quoted, signature };
}

/** Where a forwarded message starts: its marker line, its header block, and where its text begins; or null. */
function forwardAt(lines: string[], i: number, forwardSubject: boolean): { header: [number, number]; from: string | null; date: string | null } | null {
  let j = i;
  if (forwardMarkerAt(lines, i)) j = i + 1;
  else if (!(forwardSubject && (originalRuleAt(lines, i) || headerBlockAt(lines, i)))) return null;
  else if (originalRuleAt(lines, i)) j = i + 1;
  while (j < lines.length && isBlank(lines[j])) j++;
  const block = j < lines.length ? headerBlockAt(lines, j) : null;
  if (!block) {
    if (!forwardMarkerAt(lines, i)) return null;
    return { header: [i, j], from: null, date: null };
  }
  if (!forwardMarkerAt(lines, i) && !originalRuleAt(lines, i)) {
    // An Outlook header block of a Fwd: mail, or of a reply quoted in one: its own Subject tells.
    const subject = (block.subject ?? '').toLowerCase();
    if (subject && !FORWARD_SUBJECTS.some((p) => subject.startsWith(p))) return null;
  }
  return { header: [i, block.end], from: block.from, date: block.date };
}

/**
 * The sender's own words of a message's text, and what was cut.
 * `subject` tells a forward (Fwd:, FW:, WG:…) from a reply when only an
 * Outlook header block marks where the earlier message starts.
 */
export function extractOwnWords(input: string, o: { subject?: string } = {}): OwnWords {
  const lines = input.split('\n');
  for (let k = 0; k < lines.length; k++) {
    let l = lines[k];
    if (l.endsWith('\r')) l = l.slice(0, -1);
    if (l.includes('\u0000')) l = l.split('\u0000').join('');
    lines[k] = l;
  }
  const subject = (o.subject ?? '').trim().toLowerCase();
  const forwardSubject = FORWARD_SUBJECTS.some((p) => subject.startsWith(p));

  // The first boundary decides: a forward marker before any quote makes a forward.
  let forward: ReturnType<typeof forwardAt> = null;
  let at = -1;
  for (let i = 0; i < lines.length; i++) {
    if (isQuoted(lines[i]) || isBlank(lines[i])) continue;
    forward = forwardAt(lines, i, forwardSubject);
    if (forward) {
      at = i;
      break;
    }
    if (attributionAt(lines, i) || originalRuleAt(lines, i) || headerBlockAt(lines, i) || isSignatureRule(lines[i])) break;
  }

  if (!forward) {
    const cut = replyWords(lines, 0, lines.length);
    return { text: tidy(cut.kept), trimmed: trimmedOf(cut.quoted, cut.signature, []) };
  }
  const note = replyWords(lines, 0, at);
  const [h0, h1] = forward.header;
  const headerLines = lines.slice(h0, h1);
  let body: Cut;
  let from = forward.from;
  let date = forward.date;
  let header = headerLines;
  let k = h1;
  while (k < lines.length && isBlank(lines[k])) k++;
  if (k < lines.length && isQuoted(lines[k])) {
    // Some clients quote what they forward ("Begin forwarded message:" then "> From: …"): one level of `>` off.
    const inner = lines.slice(k).map(unquoteOnce);
    const block = headerBlockAt(inner, 0);
    from = block?.from ?? from;
    date = block?.date ?? date;
    header = [...headerLines, ...inner.slice(0, block?.end ?? 0)];
    body = replyWords(inner, block?.end ?? 0, inner.length);
  } else body = replyWords(lines, h1, lines.length);
  const origin = [from ? `From: ${from}` : null, date ? `Date: ${date}` : null].filter(Boolean).join('\n');
  const parts = [tidy(note.kept), origin, tidy(body.kept)].filter((p) => p !== '');
  return {
    text: parts.join('\n\n'),
    trimmed: trimmedOf([...note.quoted, ...body.quoted], [...note.signature, ...body.signature], header),
  };
}

/** A line with its first quote marker (and the space after it) off. */
function unquoteOnce(line: string): string {
  const at = line.indexOf('>');
  if (at < 0 || line.slice(0, at).trim() !== '') return line;
  return line.slice(at + (line[at + 1] === ' ' ? 2 : 1));
}

function trimmedOf(quoted: string[], signature: string[], forwardHeader: string[]): Trimmed {
  const q = tidy(quoted);
  const s = tidy(signature);
  const f = tidy(forwardHeader);
  return { quoted: q || null, signature: s || null, forward_header: f || null };
}

/** The sender's own words alone (see extractOwnWords). */
export function ownWords(text: string, o: { subject?: string } = {}): string {
  return extractOwnWords(text, o).text;
}
