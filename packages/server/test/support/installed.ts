import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** The version of `name` the server resolves (found above its main module: not every package exports package.json). */
export function installedVersion(name: string): string {
  let dir = dirname(require.resolve(name));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version: string };
      if (manifest.name === name) return manifest.version;
    } catch {
      // no package.json at this level
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json of ${name} above ${require.resolve(name)}`);
    dir = parent;
  }
}

const parts = (version: string) => version.split(/[.-]/).slice(0, 3).map(Number);
const compare = (a: string, b: string) => {
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
};

/** Whether `version` lies in a patch's checked range (`from` inclusive, `below` exclusive). */
export const withinChecked = (version: string, range: { from: string; below: string }) =>
  compare(version, range.from) >= 0 && compare(version, range.below) < 0;
