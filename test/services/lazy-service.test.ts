import { expect, it } from 'vitest';
import { lazyService } from '../../src/services/lazy-service.js';

// Services are made on first use (src/services/index.ts), so a start loads none of their modules (issue 44).

it('makes the service on its first call, once, however many calls wait for it', async () => {
  const made: number[] = [];
  const service = lazyService(async () => {
    made.push(1);
    return { twice: async (n: number) => n * 2 };
  });
  expect(made).toEqual([]);
  expect(await Promise.all([service.twice(1), service.twice(2), service.twice(3)])).toEqual([2, 4, 6]);
  expect(made).toEqual([1]);
  expect(await service.twice(4)).toBe(8);
  expect(made).toEqual([1]);
});

it('calls a member on its service (this), before and after the service is made', async () => {
  class Shower {
    private readonly prefix = 'n=';
    async show(n: number) {
      return `${this.prefix}${n}`;
    }
  }
  const service = lazyService(async () => new Shower());
  expect(await service.show(1)).toBe('n=1');
  const show = service.show;
  expect(await show(2)).toBe('n=2');
});

it('is not a thenable: an async function may answer it', async () => {
  const made: number[] = [];
  const service = lazyService(async () => {
    made.push(1);
    return { ping: async () => 'pong' };
  });
  const answered = await (async () => service)();
  expect(answered).toBe(service);
  expect(made).toEqual([]);
});

it('tries again on the next call when making the service failed', async () => {
  let attempts = 0;
  const service = lazyService(async () => {
    attempts++;
    if (attempts === 1) throw new Error('module failed to load');
    return { ping: async () => 'pong' };
  });
  await expect(service.ping()).rejects.toThrow('module failed to load');
  expect(await service.ping()).toBe('pong');
  expect(attempts).toBe(2);
});
