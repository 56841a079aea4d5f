import { createRequire } from 'node:module';

/**
 * How much of an HTML body is read: a memory holds at most 20,000
 * characters, and the quoted history that follows a reply is cut anyway.
 * Reading is linear (htmlparser2), and this bounds it too.
 */
export const MAX_HTML_CHARS = 512 * 1024;

/**
 * The visible text of an HTML mail body, its paragraphs kept (html-to-text,
 * which reads with htmlparser2 as mailparser does). Quotes are marked as the
 * clients mark them in their plain-text part, with `>`, so the one text
 * extraction finds them: Apple Mail's `<blockquote type="cite">`, Gmail's
 * `gmail_quote`, Yahoo's `yahoo_quoted`, Thunderbird's `moz-cite-prefix`
 * blockquotes. Outlook's, Hotmail's and Windows Mail's quoted history is a
 * header block (`divRplyFwdMsg`, a bordered div) read as text. A
 * `<blockquote>` that is not a quote (indentation) stays the sender's words.
 */
const options: import('html-to-text').HtmlToTextOptions = {
  wordwrap: false,
  preserveNewlines: false,
  selectors: [
    { selector: 'a', options: { ignoreHref: true } },
    { selector: 'img', format: 'skip' },
    { selector: 'style', format: 'skip' },
    { selector: 'script', format: 'skip' },
    { selector: 'head', format: 'skip' },
    { selector: 'h1', options: { uppercase: false } },
    { selector: 'h2', options: { uppercase: false } },
    { selector: 'h3', options: { uppercase: false } },
    { selector: 'h4', options: { uppercase: false } },
    { selector: 'h5', options: { uppercase: false } },
    { selector: 'h6', options: { uppercase: false } },
    { selector: 'table', format: 'block' },
    { selector: 'tr', format: 'block' },
    { selector: 'td', format: 'inline' },
    { selector: 'th', format: 'inline' },
    { selector: 'blockquote', format: 'block' },
    { selector: 'blockquote[type=cite]', format: 'blockquote', options: { trimEmptyLines: true } },
    { selector: 'blockquote.gmail_quote', format: 'blockquote', options: { trimEmptyLines: true } },
    { selector: 'div.yahoo_quoted', format: 'blockquote', options: { trimEmptyLines: true } },
    { selector: 'blockquote.yahoo_quoted', format: 'blockquote', options: { trimEmptyLines: true } },
  ],
};

// html-to-text (and htmlparser2) are read with the first HTML body, not as every process starts: a synchronous
// require, so this stays a plain function.
const require = createRequire(import.meta.url);
let convert: ((html: string) => string) | undefined;

export function textOfHtml(html: string): string {
  convert ??= (require('html-to-text') as typeof import('html-to-text')).compile(options);
  return convert(html.length > MAX_HTML_CHARS ? html.slice(0, MAX_HTML_CHARS) : html);
}
