import { describe, expect, it } from 'vitest';
import { isUuid, uuidv7 } from '../../src/lib/ids.js';

describe('uuidv7', () => {
  it('is a version 7, variant 10 UUID that carries its millisecond', () => {
    const at = Date.UTC(2026, 10, 23, 12, 0, 0, 123);
    const id = uuidv7(at);
    expect(isUuid(id)).toBe(true);
    expect(id[14]).toBe('7');
    expect('89ab').toContain(id[19]);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(at);
  });

  it('never repeats, across many refills of its random pool', () => {
    const at = Date.now();
    const ids = new Set(Array.from({ length: 20_000 }, () => uuidv7(at)));
    expect(ids.size).toBe(20_000);
  });
});
