import { describe, expect, it } from 'vitest';
import { ownWords } from '../../src/services/inbound-email/own-words.js';

describe('ownWords: the sender\'s own words of an email', () => {
  const cases: [string, string, string][] = [
    ['Gmail attribution', 'Lovely day.\n\nOn Tue, Jun 4, 2024 at 9:12 AM Ann <ann@example.com> wrote:\n> old text', 'Lovely day.'],
    ['attribution wrapped over two lines', 'Lovely day.\nOn Tue, 4 Jun 2024 at 09:12, Ann Example\n<ann@example.com> wrote:\n> old', 'Lovely day.'],
    ['French attribution', 'Belle journée.\nLe mar. 4 juin 2024 à 09:12, Ann <ann@example.com> a écrit :\n> ancien', 'Belle journée.'],
    ['German attribution', 'Schöner Tag.\nAm Di., 4. Juni 2024 um 09:12 Uhr schrieb Ann <ann@example.com>:\n> alt', 'Schöner Tag.'],
    ['quoted lines inline', 'First.\n> quoted\nSecond.', 'First.\nSecond.'],
    ['signature delimiter', 'The memory.\n-- \nRose\n555-1234', 'The memory.'],
    ['mobile footer', 'The memory.\n\nSent from my iPhone', 'The memory.'],
    ['Outlook original message rule', 'Yes!\n\n-----Original Message-----\nFrom: Ann\nSent: Monday\nTo: Rose\nSubject: Hi', 'Yes!'],
    ['Outlook From block', 'Yes!\n\nFrom: Ann Example <ann@example.com>\nSent: Monday, June 3, 2024 10:00 AM\nTo: Rose\nSubject: Hi\n\nOld text', 'Yes!'],
    ['Outlook underscore rule', 'Yes!\n________________________________\nFrom: Ann\nSent: Monday', 'Yes!'],
    ['a From: that opens no header block is kept', 'From: the kitchen window we saw the lake.', 'From: the kitchen window we saw the lake.'],
    ['CRLF and blank runs', 'One.\r\n\r\n\r\n\r\nTwo.\r\n', 'One.\n\nTwo.'],
  ];
  for (const [name, input, expected] of cases) it(name, () => expect(ownWords(input)).toBe(expected));
});

describe('ownWordsOfParts: the text part, or the HTML part when it is richer', async () => {
  const { ownWordsOfParts } = await import('../../src/services/inbound-email/inbound-email-service.js');
  const html = '<p>We spent every summer at the lake house.</p><p>Grandpa taught me to fish off the old dock, and we grilled what we caught every Friday night.</p>';
  it('reads an HTML-only message as HTML, paragraphs kept', () => {
    expect(ownWordsOfParts('', html, 'Summer').text).toBe('We spent every summer at the lake house.\n\nGrandpa taught me to fish off the old dock, and we grilled what we caught every Friday night.');
  });
  it('reads the HTML part when the text part is a stub', () => {
    expect(ownWordsOfParts('View this message in a browser.', html, 'Summer').text).toContain('Grandpa taught me');
  });
  it('keeps the text part when it has the words', () => {
    expect(ownWordsOfParts('We spent every summer at the lake house.\nGrandpa taught me to fish.', html, 'Summer').text).toBe('We spent every summer at the lake house.\nGrandpa taught me to fish.');
  });
});
