import { afterAll } from 'vitest';

// Files share a process (isolate: false): what one file sets in the
// environment must not reach the next one, nor the servers it spawns.
const env = { ...process.env };
afterAll(() => {
  for (const name of Object.keys(process.env)) if (!(name in env)) delete process.env[name];
  Object.assign(process.env, env);
});
