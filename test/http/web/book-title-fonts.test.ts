/**
 * The book's title on the contributor pages uses the printed book's fallback
 * chain: every face the stylesheet names is served by memorybook itself, and
 * a title in any script finds a face that draws each of its characters
 * (checked as a browser picks a face: the family list in order, each face's
 * unicode-range, then its cmap).
 */
import { createRequire } from 'node:module';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newBook, newUser } from '../../helpers/factories.js';
import { formPathOf, webClient } from './web-client.js';

const fontkit = createRequire(import.meta.url)('fontkit') as { create(b: Buffer): { hasGlyphForCodePoint(cp: number): boolean } };

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});

interface Face {
  family: string;
  url: string;
  ranges: [number, number][];
}

function facesOf(css: string): Face[] {
  return [...css.matchAll(/@font-face \{ font-family: "([^"]+)"; src: url\("([^"]+)"\)[^}]*?(?:unicode-range: ([^;]+);)? \}/g)].map((m) => ({
    family: m[1],
    url: m[2],
    ranges: (m[3] ?? 'U+0-10FFFF').split(',').map((r) => {
      const [a, b] = r.trim().slice(2).split('-');
      return [parseInt(a, 16), parseInt(b ?? a, 16)] as [number, number];
    }),
  }));
}

const TITLES: [string, string][] = [
  ['editorial_noir', 'Bà Nguyễn Thị Hường tròn 90 tuổi'],
  ['retirement_tribute', 'جدتي الحبيبة في عيدها التسعين'],
  ['storybook', 'Babcia Łucja — 90 lat! 🎉'],
  ['elegant_classic', 'Бабушка Роза · 奶奶九十岁 · 할머니 · सुनहरी यादें · סבתא'],
];

describe('the book title in every script on the web form', () => {
  it('serves every face the stylesheet names', async () => {
    const page = await webClient(t).get(`/b/${(await newBook(t, await newUser(t))).slug}/`);
    const href = /<link rel="stylesheet" href="([^"]+)"/.exec(page.text)![1];
    const css = (await t.app.inject({ method: 'GET', url: href })).body;
    const faces = facesOf(css);
    expect(faces.filter((f) => f.family.startsWith('mb-fb-')).length).toBeGreaterThanOrEqual(7);
    for (const url of new Set(faces.map((f) => f.url))) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type'], url).toMatch(/^font\/(ttf|otf)$/);
      expect(['00010000', '4f54544f'], url).toContain(res.rawPayload.subarray(0, 4).toString('hex'));
    }
  });

  for (const [theme, title] of TITLES) {
    it(`finds a face for every character of "${title}" (${theme})`, async () => {
      const owner = await newUser(t);
      const { slug } = await newBook(t, owner, { title, theme });
      const page = await webClient(t).get(await formPathOf(t, slug)); // a private book's form needs its key
      expect(page.status).toBe(200);
      expect(page.text).toContain(title);
      const href = /<link rel="stylesheet" href="([^"]+)"/.exec(page.text)![1];
      const css = (await t.app.inject({ method: 'GET', url: href })).body;
      const rule = new RegExp(`\\.theme-${theme} \\{[^}]*--title-font: ([^;]+);`).exec(css)![1];
      const families = [...rule.matchAll(/"([^"]+)"/g)].map((m) => m[1]).filter((f) => f.startsWith('mb-'));
      expect(families[0]).toBe(`mb-title-${theme}`);
      const faces = facesOf(css);
      const fonts = new Map<string, { hasGlyphForCodePoint(cp: number): boolean }>();
      const fontAt = async (url: string) => {
        if (!fonts.has(url)) fonts.set(url, fontkit.create((await t.app.inject({ method: 'GET', url })).rawPayload));
        return fonts.get(url)!;
      };
      for (const ch of title) {
        const cp = ch.codePointAt(0)!;
        if (/\s/.test(ch) || cp === 0xfe0f) continue;
        let drawn = false;
        for (const family of families) {
          for (const f of faces.filter((x) => x.family === family && x.ranges.some(([a, b]) => cp >= a && cp <= b))) {
            if ((await fontAt(f.url)).hasGlyphForCodePoint(cp)) drawn = true;
          }
          if (drawn) break;
        }
        expect(drawn, `U+${cp.toString(16)} ${ch} in ${theme}`).toBe(true);
      }
    });
  }
});
