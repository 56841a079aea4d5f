import { describe, expect, it } from 'vitest';
import { rejectionMessage } from './notifications.js';

const submission = { contributor_email: 'ada@example.test', contributor_name: 'Ada', text_content: 'We met in 1990.\nIt rained.' };

describe('rejectionMessage', () => {
  it('addresses the contributor, names the book, quotes the memory and gives the reason', () => {
    const m = rejectionMessage(submission, { title: "Grandma's 90th" }, 'Please keep it about Grandma.');
    expect(m.to).toBe('ada@example.test');
    expect(m.subject).toBe(`Your memory for "Grandma's 90th" was not included`);
    expect(m.text).toContain('Hello Ada,');
    expect(m.text).toContain('The reason given: Please keep it about Grandma.');
    expect(m.text).toContain('> We met in 1990.\n> It rained.');
    expect(m.html).toContain('Please keep it about Grandma.');
  });

  it('says so when no reason was given, and greets without a name', () => {
    const m = rejectionMessage({ ...submission, contributor_name: null }, { title: 'Book' }, null);
    expect(m.text).toContain('Hello,');
    expect(m.text).toContain('No reason was given.');
    expect(m.html).toContain('No reason was given.');
  });

  it('escapes HTML, keeps the subject on one line and shortens a long memory', () => {
    const m = rejectionMessage(
      { ...submission, contributor_name: '<b>Eve</b>', text_content: `<script>x</script>${'y'.repeat(1000)}` },
      { title: 'Evil\r\nBcc: victim@example.test' },
      '<img src=x onerror=alert(1)>',
    );
    expect(m.subject).not.toMatch(/[\r\n]/);
    expect(m.html).not.toContain('<script>');
    expect(m.html).not.toContain('<img');
    expect(m.html).toContain('&lt;b&gt;Eve&lt;/b&gt;');
    expect(m.text.length).toBeLessThan(1000);
    expect(m.text).toContain('…');
  });
});
