import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';

/** The embedded database is already used by another live process. */
export class DataDirLocked extends Error {
  override name = 'DataDirLocked';
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the exclusive lock of an embedded database directory: a `<dir>.lock` file created with
 * O_EXCL that holds the owner's pid. A lock left by a process that no longer runs is taken over.
 * PGlite is a single-process database: two processes on one directory would corrupt it.
 * Returns the function that releases the lock.
 */
export function lockDataDir(dir: string): () => void {
  const path = `${dir.replace(/\/+$/, '')}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number.parseInt(readFileSync(path, 'utf8'), 10);
      if (Number.isInteger(owner) && owner !== process.pid && alive(owner)) {
        throw new DataDirLocked(
          `The embedded database ${dir} is in use by process ${owner}: stop it, or give this one another PGLITE_DATA_DIR or a DATABASE_URL`,
        );
      }
      rmSync(path, { force: true }); // stale: its owner is gone
    }
  }
  throw new DataDirLocked(`Could not lock the embedded database ${dir} (${path})`);
}
