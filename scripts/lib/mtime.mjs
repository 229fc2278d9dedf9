// Modification times of build inputs and outputs (what `--if-stale` compares).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Newest modification time under the given files and folders (0 when none exists). */
export function newest(paths) {
  let max = 0;
  const visit = (p) => {
    if (!existsSync(p)) return;
    const s = statSync(p);
    if (s.isDirectory()) for (const name of readdirSync(p)) visit(join(p, name));
    else max = Math.max(max, s.mtimeMs);
  };
  paths.forEach(visit);
  return max;
}

/** Oldest modification time of the given files (0 when one is missing). */
export const oldest = (paths) => Math.min(...paths.map((p) => (existsSync(p) ? statSync(p).mtimeMs : 0)));
