import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';

/**
 * PGlite is one process's database: two processes opening the same folder
 * corrupt it, and PGlite itself does not stop them. A lock file holding the
 * owner's pid is taken before opening and removed on close; a lock left by a
 * process that no longer exists is taken over.
 */
export function lockDataDir(dir: string): () => void {
  const file = path.join(dir, '.memorybook.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        try {
          if (readFileSync(file, 'utf8').trim() === String(process.pid)) unlinkSync(file);
        } catch {
          /* already gone */
        }
      };
      process.once('exit', release);
      return release;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(readFileSync(file, 'utf8').trim());
      if (owner && isAlive(owner)) {
        throw new Error(
          `The embedded database in ${dir} is in use by process ${owner}. Only one process may open it: stop that process, or set DATABASE_URL to use PostgreSQL.`,
        );
      }
      unlinkSync(file); // stale: its process is gone
    }
  }
  throw new Error(`could not lock ${dir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
