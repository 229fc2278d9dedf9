// The version a build of the SDK carries. `packages/sdk/package.json` names the version the next
// release will have; a build is that version only when it is exactly what a release recorded:
//   - the bundled contract (packages/contract/dist/openapi.json, written by `pnpm gen`) equals the
//     latest release under openapi/releases/,
//   - neither openapi/CHANGELOG.md nor packages/sdk/CHANGELOG.md lists entries under "Unreleased",
//   - and that version is not past the latest release.
// Any other build is a prerelease of the version it leads to: `<version>-next.<N>`, N the number of
// commits since the commit that added the latest release file (0 without git). The same commit so
// always packs to the same version, and later commits to higher ones (semver orders `next.9` below
// `next.10`, and every `-next.N` below the release). Node built-ins only: `.pnpmfile.cjs` loads it
// while pnpm packs.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';

const repositoryRoot = join(dirname(fileURLToPath(import.meta.url)), '../..');
const PLAIN = /^(\d+)\.(\d+)\.(\d+)$/;
const parse = (v) => PLAIN.exec(v)?.slice(1).map(Number);
const compare = (a, b) => {
  const [x, y] = [parse(a), parse(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] - y[i];
  return 0;
};
const nextPatch = (v) => {
  const [major, minor, patch] = parse(v);
  return `${major}.${minor}.${patch + 1}`;
};

/** The list items under a changelog's `## Unreleased` heading (up to the next `## ` heading). */
export function unreleasedEntries(markdown) {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => /^## +Unreleased\b/i.test(line));
  if (start < 0) return [];
  const entries = [];
  for (const line of lines.slice(start + 1)) {
    if (/^## /.test(line)) break;
    if (/^[-*] +\S/.test(line)) entries.push(line.replace(/^[-*] +/, ''));
  }
  return entries;
}

function git(root, args) {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

/** Commits since the one that added `file` (all commits without a file or when it was never committed); undefined without git. */
function commitsSince(root, file) {
  const added = file && git(root, ['log', '-1', '--format=%H', '--diff-filter=A', '--', file]);
  const count = git(root, ['rev-list', '--count', added ? `${added}..HEAD` : 'HEAD']);
  return count === undefined ? undefined : Number(count);
}

const readText = (file) => (existsSync(file) ? readFileSync(file, 'utf8') : '');

/**
 * `{ version, base, release, reasons, commits }` for the repository at `root`: `version` what a
 * pack carries, `base` packages/sdk/package.json's version, `release` the latest released version,
 * `reasons` why the build is a prerelease (empty for a release build).
 */
export function sdkVersion(root = repositoryRoot) {
  const base = JSON.parse(readFileSync(join(root, 'packages/sdk/package.json'), 'utf8')).version;
  if (!parse(base)) throw new Error(`packages/sdk/package.json: version ${base} must be a plain x.y.z (the build adds -next.N)`);
  const releasesDir = join(root, 'openapi/releases');
  const released = existsSync(releasesDir)
    ? readdirSync(releasesDir)
        .map((name) => /^(\d+\.\d+\.\d+)\.json$/.exec(name)?.[1])
        .filter(Boolean)
        .sort(compare)
    : [];
  const release = released.at(-1);

  const reasons = [];
  if (!release) reasons.push('no release under openapi/releases');
  else {
    const bundleFile = join(root, 'packages/contract/dist/openapi.json');
    if (!existsSync(bundleFile)) reasons.push('no bundled contract (run pnpm gen)');
    else {
      const bundle = JSON.parse(readFileSync(bundleFile, 'utf8'));
      const recorded = JSON.parse(readFileSync(join(releasesDir, `${release}.json`), 'utf8'));
      if (!isDeepStrictEqual(bundle, recorded)) reasons.push(`the contract differs from release ${release}`);
    }
    if (compare(base, release) > 0) reasons.push(`${base} is not released (latest release ${release})`);
  }
  for (const [file, what] of [
    ['openapi/CHANGELOG.md', 'the contract'],
    ['packages/sdk/CHANGELOG.md', 'the SDK'],
  ]) {
    const entries = unreleasedEntries(readText(join(root, file)));
    if (entries.length) reasons.push(`${entries.length} unreleased change(s) of ${what} (${file})`);
  }
  if (!reasons.length) return { version: base, base, release, reasons, commits: 0 };

  // The version this build leads to: the SDK's own when it is past the release, else the next patch.
  const target = !release || compare(base, release) > 0 ? base : nextPatch(release);
  const commits = commitsSince(root, release && `openapi/releases/${release}.json`) ?? 0;
  return { version: `${target}-next.${commits}`, base, release, reasons, commits };
}
