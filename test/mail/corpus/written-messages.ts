/**
 * Messages written for this project, each modelled on the published shape
 * of one mail client in one language (how Gmail, Outlook, Apple Mail,
 * Thunderbird, Yahoo, Hotmail and Windows Mail write their attribution,
 * header block, forward rule and footer in that language). They are not
 * real messages: the real ones are the npm fixtures named in corpus.ts.
 */
export interface WrittenCase {
  name: string;
  source: string;
  subject?: string;
  text?: string;
  html?: string;
  expected: string;
}

const OWN = 'Grandma always sang while she baked.\nWe miss her every day.';
const OLD = 'Please send a memory for the book.';

/** [language, Gmail attribution, Outlook header names (from, sent, to, subject), Gmail forward rule, Apple forward line, a mobile footer]. */
const LANGUAGES: [string, string, [string, string, string, string], string, string, string][] = [
  ['English', 'On Mon, 3 Jun 2024 at 10:00, Ann Example <ann@example.com> wrote:', ['From', 'Sent', 'To', 'Subject'], '---------- Forwarded message ---------', 'Begin forwarded message:', 'Sent from my iPhone'],
  ['German', 'Am Mo., 3. Juni 2024 um 10:00 Uhr schrieb Ann Example <ann@example.com>:', ['Von', 'Gesendet', 'An', 'Betreff'], '---------- Weitergeleitete Nachricht ---------', 'Anfang der weitergeleiteten Nachricht:', 'Von meinem iPhone gesendet'],
  ['French', 'Le lun. 3 juin 2024 à 10:00, Ann Example <ann@example.com> a écrit :', ['De', 'Envoyé', 'À', 'Objet'], '---------- Message transféré ---------', 'Début du message réexpédié :', 'Envoyé de mon iPhone'],
  ['Spanish', 'El lun, 3 jun 2024 a las 10:00, Ann Example (<ann@example.com>) escribió:', ['De', 'Enviado', 'Para', 'Asunto'], '---------- Mensaje reenviado ---------', 'Inicio del mensaje reenviado:', 'Enviado desde mi iPhone'],
  ['Portuguese', 'Em seg., 3 de jun. de 2024 às 10:00, Ann Example <ann@example.com> escreveu:', ['De', 'Enviado', 'Para', 'Assunto'], '---------- Mensagem encaminhada ---------', 'Início da mensagem encaminhada:', 'Enviado do meu iPhone'],
  ['Italian', 'Il giorno lun 3 giu 2024 alle ore 10:00 Ann Example <ann@example.com> ha scritto:', ['Da', 'Inviato', 'A', 'Oggetto'], '---------- Messaggio inoltrato ---------', 'Inizio messaggio inoltrato:', 'Inviato da iPhone'],
  ['Dutch', 'Op ma 3 jun 2024 om 10:00 schreef Ann Example <ann@example.com>:', ['Van', 'Verzonden', 'Aan', 'Onderwerp'], '---------- Doorgestuurd bericht ---------', 'Begin doorgestuurd bericht:', 'Verzonden vanaf mijn iPhone'],
  ['Swedish', 'Den mån 3 juni 2024 kl 10:00 skrev Ann Example <ann@example.com>:', ['Från', 'Skickat', 'Till', 'Ämne'], '---------- Vidarebefordrat meddelande ---------', 'Vidarebefordrat brev:', 'Skickat från min iPhone'],
  ['Danish', 'Den man. 3. jun. 2024 kl. 10.00 skrev Ann Example <ann@example.com>:', ['Fra', 'Sendt', 'Til', 'Emne'], '---------- Videresendt meddelelse ---------', 'Videresendt besked:', 'Sendt fra min iPhone'],
  ['Norwegian', 'man. 3. jun. 2024 kl. 10:00 skrev Ann Example <ann@example.com>:', ['Fra', 'Sendt', 'Til', 'Emne'], '---------- Videresendt melding ---------', 'Videresendt melding:', 'Sendt fra min iPhone'],
  ['Finnish', 'ma 3. kesäk. 2024 klo 10.00 Ann Example (ann@example.com) kirjoitti:', ['Lähettäjä', 'Lähetetty', 'Vastaanottaja', 'Aihe'], '---------- Välitetty viesti ---------', 'Välitetty viesti alkaa:', 'Lähetetty iPhonesta'],
  ['Polish', 'W dniu pon., 3.06.2024 o 10:00 Ann Example <ann@example.com> napisał(a):', ['Od', 'Wysłano', 'Do', 'Temat'], '---------- Przekazana wiadomość ---------', 'Początek przekazywanej wiadomości:', 'Wysłane z iPhone’a'],
  ['Czech', 'po 3. 6. 2024 v 10:00 odesílatel Ann Example <ann@example.com> napsal:', ['Od', 'Odesláno', 'Komu', 'Předmět'], '---------- Přeposlaná zpráva ---------', 'Začátek přeposlané zprávy:', 'Odesláno z iPhonu'],
  ['Russian', 'пн, 3 июн. 2024 г. в 10:00, Ann Example <ann@example.com>:\nAnn Example пишет:', ['От', 'Отправлено', 'Кому', 'Тема'], '---------- Пересылаемое сообщение ---------', 'Начало переадресованного сообщения:', 'Отправлено с iPhone'],
  ['Ukrainian', 'пн, 3 черв. 2024 р. о 10:00 Ann Example <ann@example.com> пише:', ['Від', 'Надіслано', 'Кому', 'Тема'], '---------- Переслане повідомлення ---------', 'Початок пересланого повідомлення:', 'Надіслано з iPhone'],
  ['Turkish', '3 Haz 2024 Pzt, 10:00 tarihinde Ann Example <ann@example.com> şunu yazdı:', ['Kimden', 'Gönderildi', 'Kime', 'Konu'], '---------- İletilen mesaj ---------', 'İletilen ileti başlangıcı:', 'iPhone’umdan gönderildi'],
  ['Japanese', '2024年6月3日(月) 10:00 Ann Example <ann@example.com>:\nAnn Example のメッセージ:', ['差出人', '送信日時', '宛先', '件名'], '---------- 転送されたメッセージ ---------', '転送されたメッセージ:', 'iPhoneから送信'],
  ['Chinese', 'Ann Example <ann@example.com> 于2024年6月3日周一 10:00写道：', ['发件人', '发送时间', '收件人', '主题'], '---------- 转发的邮件 ---------', '以下是转发的邮件：', '发自我的iPhone'],
  ['Korean', '2024년 6월 3일 (월) 오전 10:00, Ann Example <ann@example.com>님이 작성:', ['보낸 사람', '보낸 날짜', '받는 사람', '제목'], '---------- 전달된 메시지 ---------', '전달된 메시지 시작:', 'iPhone에서 보냄'],
  ['Vietnamese', 'Vào Th 2, 3 thg 6, 2024 vào lúc 10:00 Ann Example <ann@example.com> đã viết:', ['Từ', 'Đã gửi', 'Đến', 'Chủ đề'], '---------- Thư được chuyển tiếp ---------', 'Bắt đầu tin nhắn được chuyển tiếp:', 'Được gửi từ iPhone của tôi'],
];

const cases: WrittenCase[] = [];
for (const [lang, attribution, [from, sent, to, subject], rule, apple, footer] of LANGUAGES) {
  const attr = attribution.split('\n').pop()!;
  cases.push({
    name: `${lang}: Gmail reply above the quote, with its attribution`,
    source: `written for memorybook, modelled on Gmail's ${lang} attribution`,
    text: `${OWN}\n\n${attr}\n\n> ${OLD}\n> Ann\n`,
    expected: OWN,
  });
  cases.push({
    name: `${lang}: Outlook reply over a header block`,
    source: `written for memorybook, modelled on Outlook's ${lang} header block`,
    text: `${OWN}\n\n________________________________\n${from}: Ann Example <ann@example.com>\n${sent}: 3.6.2024 10:00\n${to}: Rose <rose@example.com>\n${subject}: Re: Rose\n\n${OLD}\n`,
    expected: OWN,
  });
  cases.push({
    name: `${lang}: Gmail forward with a note`,
    source: `written for memorybook, modelled on Gmail's ${lang} forward rule`,
    subject: 'Fwd: Letter',
    text: `Grandpa wrote this in 2009.\n\n${rule}\n${from}: Grandpa <grandpa@example.com>\nDate: 3.6.2009 10:00\n${subject}: Letter\n${to}: <rose@example.com>\n\n${OWN}\n`,
    expected: `Grandpa wrote this in 2009.\n\nFrom: Grandpa <grandpa@example.com>\nDate: 3.6.2009 10:00\n\n${OWN}`,
  });
  cases.push({
    name: `${lang}: Apple Mail forward without a note, and the phone's footer`,
    source: `written for memorybook, modelled on Apple Mail's ${lang} forward`,
    subject: 'Fwd: Letter',
    text: `${footer}\n\n${apple}\n\n${from}: Grandpa <grandpa@example.com>\n${sent}: 3.6.2009 10:00\n${to}: Rose <rose@example.com>\n${subject}: Letter\n\n${OWN}\n`,
    expected: `From: Grandpa <grandpa@example.com>\nDate: 3.6.2009 10:00\n\n${OWN}`,
  });
}

cases.push(
  {
    name: 'Thunderbird: bottom posting under the quote',
    source: 'written for memorybook, modelled on Thunderbird\'s reply below the quote',
    text: `On 03.06.2024 10:00, Ann Example wrote:\n> ${OLD}\n> Ann\n\n${OWN}\n\nRegards, Roman\n`,
    expected: `${OWN}\n\nRegards, Roman`,
  },
  {
    name: 'interleaved answers between quotes',
    source: 'written for memorybook, modelled on a Thunderbird inline reply',
    text: `On 03.06.2024 10:00, Ann Example wrote:\n> Where did you live?\n\nIn Leeds, by the river.\n\n> And the dog?\n\nHer name was Bess.\n`,
    expected: 'In Leeds, by the river.\n\nHer name was Bess.',
  },
  {
    name: 'a sentence that starts like a footer stays',
    source: 'written for memorybook, modelled on a reply typed on a desktop',
    text: 'Sent from my desk, is much easier then my mobile phone.\n',
    expected: 'Sent from my desk, is much easier then my mobile phone.',
  },
  {
    name: 'Outlook header block that begins with Date:',
    source: 'written for memorybook, modelled on Outlook for Mac\'s header block',
    text: `${OWN}\n\nDate: Monday, 3 June 2024 at 10:00\nFrom: Ann Example <ann@example.com>\nTo: Rose <rose@example.com>\nSubject: Re: Rose\n\n${OLD}\n`,
    expected: OWN,
  },
  {
    name: 'Zoho-style attribution between dashes',
    source: 'written for memorybook, modelled on Zoho Mail',
    text: `${OWN}\n\n---- John Smith wrote ----\n\n${OLD}\n`,
    expected: OWN,
  },
  {
    name: 'Danish original message rule',
    source: 'written for memorybook, modelled on Outlook (Danish)',
    text: `${OWN}\n\n-----Oprindelig meddelelse-----\nFra: Ann\nSendt: 3. juni 2024 10:00\n\n${OLD}\n`,
    expected: OWN,
  },
  {
    name: 'German reply message rule',
    source: 'written for memorybook, modelled on a German webmail client',
    text: `${OWN}\n\n-----Antwort Nachricht-----\nVon: Ann\nDatum: 3. Juni 2024\n\n${OLD}\n`,
    expected: OWN,
  },
  {
    name: 'Gmail HTML reply with gmail_quote',
    source: 'written for memorybook, modelled on Gmail\'s HTML reply',
    html: `<div dir="ltr"><div>Grandma always sang while she baked.</div><div>We miss her every day.</div></div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">On Mon, 3 Jun 2024 at 10:00, Ann Example &lt;<a href="mailto:ann@example.com">ann@example.com</a>&gt; wrote:<br></div><blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex"><div dir="ltr">${OLD}</div></blockquote></div>`,
    expected: OWN,
  },
  {
    name: 'Outlook HTML reply with divRplyFwdMsg',
    source: 'written for memorybook, modelled on Outlook on the web\'s HTML reply',
    html: `<html><body><div>Grandma always sang while she baked.</div><div>We miss her every day.</div><hr style="display:inline-block;width:98%" tabindex="-1"><div id="divRplyFwdMsg" dir="ltr"><font face="Calibri, sans-serif"><b>From:</b> Ann Example &lt;ann@example.com&gt;<br><b>Sent:</b> Monday, June 3, 2024 10:00 AM<br><b>To:</b> Rose &lt;rose@example.com&gt;<br><b>Subject:</b> Re: Rose</font><div>&nbsp;</div></div><div>${OLD}</div></body></html>`,
    expected: OWN,
  },
  {
    name: 'Apple Mail HTML reply with blockquote type=cite',
    source: 'written for memorybook, modelled on Apple Mail\'s HTML reply',
    html: `<html><body><div>Grandma always sang while she baked.</div><div>We miss her every day.</div><div><br><blockquote type="cite"><div>On 3 Jun 2024, at 10:00, Ann Example &lt;ann@example.com&gt; wrote:</div><br><div><div>${OLD}</div></div></blockquote></div></body></html>`,
    expected: OWN,
  },
  {
    name: 'Yahoo HTML reply with yahoo_quoted',
    source: 'written for memorybook, modelled on Yahoo Mail\'s HTML reply',
    html: `<html><body><div class="ydp"><div>Grandma always sang while she baked.</div><div>We miss her every day.</div></div><div id="yahoo_quoted_123" class="yahoo_quoted"><div>On Monday, June 3, 2024, 10:00 AM, Ann Example &lt;ann@example.com&gt; wrote:</div><div><div>${OLD}</div></div></div></body></html>`,
    expected: OWN,
  },
  {
    name: 'Hotmail HTML reply with stopSpelling rule',
    source: 'written for memorybook, modelled on Hotmail\'s HTML reply',
    html: `<html><body><div>Grandma always sang while she baked.<br>We miss her every day.</div><hr id="stopSpelling">Date: Mon, 3 Jun 2024 10:00:00 +0000<br>From: ann@example.com<br>To: rose@example.com<br>Subject: Rose<br><br>${OLD}</body></html>`,
    expected: OWN,
  },
  {
    name: 'Windows Mail HTML reply with a bordered header',
    source: 'written for memorybook, modelled on Windows Mail\'s HTML reply',
    html: `<html><body><div><p>Grandma always sang while she baked.</p><p>We miss her every day.</p><p>Sent from <a href="https://go.microsoft.com/fwlink/?LinkId=550986">Mail</a> for Windows 10</p></div><div style="border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm 0cm 0cm"><p><b>From: </b>Ann Example<br><b>Sent: </b>Monday, 3 June 2024 10:00<br><b>To: </b>Rose<br><b>Subject: </b>Rose</p></div><p>${OLD}</p></body></html>`,
    expected: 'Grandma always sang while she baked.\n\nWe miss her every day.',
  },
  {
    name: 'HTML-only mail with an indenting blockquote that is not a quote',
    source: 'written for memorybook, modelled on a webmail client\'s indent button',
    html: `<html><body><p>Grandma always sang while she baked.</p><blockquote style="margin:0 0 0 40px">We miss her every day.</blockquote></body></html>`,
    expected: 'Grandma always sang while she baked.\n\nWe miss her every day.',
  },
  {
    name: 'Gmail HTML forward with no note',
    source: 'written for memorybook, modelled on Gmail\'s HTML forward',
    subject: 'Fwd: Letter',
    html: `<div dir="ltr"><br><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">---------- Forwarded message ---------<br>From: <strong class="gmail_sendername">Grandpa</strong> <span>&lt;grandpa@example.com&gt;</span><br>Date: Mon, 3 Jun 2009 at 10:00<br>Subject: Letter<br>To: &lt;rose@example.com&gt;<br></div><br><br><div dir="ltr"><div>Grandma always sang while she baked.</div><div>We miss her every day.</div></div></div></div>`,
    expected: `From: Grandpa <grandpa@example.com>\nDate: Mon, 3 Jun 2009 at 10:00\n\n${OWN}`,
  },
);

export const WRITTEN_CASES = cases;
