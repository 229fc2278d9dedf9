// The SDK's packed version names what the build is: the plain version only for a build that is a
// release, `<version>-next.N` otherwise (scripts/lib/sdk-version.mjs), until `pnpm contract:release`.
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: plain JavaScript module without declarations
import { releaseChangelog } from '../../scripts/lib/changelog.mjs';
// @ts-expect-error: plain JavaScript module without declarations
import { sdkVersion, unreleasedEntries } from '../../scripts/lib/sdk-version.mjs';
// @ts-expect-error: plain JavaScript module without declarations
import { bundleContract } from '../../scripts/lib/contract.mjs';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sdk-version-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const HEAD = '# Changelog\n\nIntro.\n\n';
const document = (version: string, extra = {}) => ({ openapi: '3.1.0', info: { title: 'T', version, ...extra }, paths: {} });
const git = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false', ...args], {
    cwd: dir,
    stdio: 'pipe',
  });

interface Repo {
  sdk: string;
  release?: string;
  bundle: object;
  contractLog?: string;
  sdkLog?: string;
  /** Commits after the one that adds the release (undefined: no git repository). */
  commitsAfter?: number;
}
function repo(name: string, r: Repo) {
  const dir = join(work, name);
  mkdirSync(join(dir, 'openapi/releases'), { recursive: true });
  mkdirSync(join(dir, 'packages/sdk'), { recursive: true });
  mkdirSync(join(dir, 'packages/contract/dist'), { recursive: true });
  writeFileSync(join(dir, 'packages/sdk/package.json'), JSON.stringify({ name: '@transport-ops/sdk', version: r.sdk }));
  writeFileSync(join(dir, 'packages/contract/dist/openapi.json'), JSON.stringify(r.bundle));
  writeFileSync(join(dir, 'openapi/CHANGELOG.md'), `${HEAD}${r.contractLog ?? `## ${r.release ?? '0.1.0'} (2026-01-01)\n`}`);
  writeFileSync(join(dir, 'packages/sdk/CHANGELOG.md'), `${HEAD}${r.sdkLog ?? '## Unreleased\n'}`);
  if (r.commitsAfter !== undefined) {
    git(dir, 'init', '-q');
    git(dir, 'commit', '-q', '--allow-empty', '-m', 'before the release');
  }
  // Released documents are written pretty-printed, the bundle compactly: the comparison is of content.
  if (r.release) writeFileSync(join(dir, `openapi/releases/${r.release}.json`), JSON.stringify(document(r.release), null, 2));
  if (r.commitsAfter !== undefined) {
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'release');
    for (let i = 0; i < r.commitsAfter; i++) git(dir, 'commit', '-q', '--allow-empty', '-m', `change ${i}`);
  }
  return dir;
}

describe('the version a pack of the SDK carries', () => {
  const cases: { name: string; given: Repo; want: string; because?: RegExp }[] = [
    {
      name: 'a build that is the release',
      given: { sdk: '1.2.0', release: '1.2.0', bundle: document('1.2.0'), commitsAfter: 3 },
      want: '1.2.0',
    },
    {
      name: 'a contract changed since the release, on the next minor',
      given: { sdk: '1.3.0', release: '1.2.0', bundle: document('1.3.0'), commitsAfter: 4 },
      want: '1.3.0-next.4',
      because: /the contract differs from release 1\.2\.0/,
    },
    {
      name: 'a documentation-only change at the released version: the next patch',
      given: { sdk: '1.2.0', release: '1.2.0', bundle: document('1.2.0', { description: 'Clearer.' }), commitsAfter: 2 },
      want: '1.2.1-next.2',
      because: /differs from release/,
    },
    {
      name: 'unreleased entries in the contract changelog',
      given: {
        sdk: '1.2.0',
        release: '1.2.0',
        bundle: document('1.2.0'),
        contractLog: '## Unreleased\n\n### Fixed\n- A computed value is bounded.\n\n## 1.2.0 (2026-01-01)\n',
        commitsAfter: 1,
      },
      want: '1.2.1-next.1',
      because: /1 unreleased change\(s\) of the contract/,
    },
    {
      name: 'unreleased entries in the SDK changelog',
      given: {
        sdk: '1.2.0',
        release: '1.2.0',
        bundle: document('1.2.0'),
        sdkLog: '## Unreleased\n\n- A fix.\n- Another.\n',
        commitsAfter: 0,
      },
      want: '1.2.1-next.0',
      because: /2 unreleased change\(s\) of the SDK/,
    },
    {
      name: 'an SDK version past the release with nothing else changed',
      given: { sdk: '1.3.0', release: '1.2.0', bundle: document('1.2.0'), commitsAfter: 7 },
      want: '1.3.0-next.7',
      because: /1\.3\.0 is not released/,
    },
    {
      name: 'outside git (a source archive): N is 0',
      given: { sdk: '1.3.0', release: '1.2.0', bundle: document('1.3.0') },
      want: '1.3.0-next.0',
    },
  ];
  for (const { name, given, want, because } of cases) {
    it(`${name}: ${want}`, () => {
      const result = sdkVersion(repo(name.replace(/\W+/g, '-'), given));
      expect(result.version).toBe(want);
      if (because) expect(result.reasons.join('; ')).toMatch(because);
      else if (want === given.sdk) expect(result.reasons).toEqual([]);
    });
  }

  it('orders later commits after earlier ones and every prerelease before its release', () => {
    const dir = repo('ordered', { sdk: '1.3.0', release: '1.2.0', bundle: document('1.3.0'), commitsAfter: 9 });
    const ninth = sdkVersion(dir).version;
    git(dir, 'commit', '-q', '--allow-empty', '-m', 'tenth');
    const tenth = sdkVersion(dir).version;
    expect([ninth, tenth]).toEqual(['1.3.0-next.9', '1.3.0-next.10']);
    // The same commit packs to the same version.
    expect(sdkVersion(dir).version).toBe(tenth);
  });

  it('reads the entries under "Unreleased" only', () => {
    expect(unreleasedEntries(`${HEAD}## Unreleased\n\n### Added\n- One.\n  continued\n* Two.\n\n## 1.0.0\n\n- Old.\n`)).toEqual([
      'One.',
      'Two.',
    ]);
    expect(unreleasedEntries(`${HEAD}## Unreleased\n\n## 1.0.0\n\n- Old.\n`)).toEqual([]);
    expect(unreleasedEntries(`${HEAD}## 1.0.0\n\n- Old.\n`)).toEqual([]);
  });

  it('is what pnpm pack writes into the tarball (.pnpmfile.cjs)', () => {
    // The hook pnpm calls with the manifest it is about to pack.
    const { hooks } = createRequire(import.meta.url)(join(root, '.pnpmfile.cjs'));
    const packed = hooks.beforePacking({ name: '@transport-ops/sdk', version: '1.2.0', main: './dist/index.js' });
    expect(packed).toEqual({ name: '@transport-ops/sdk', version: sdkVersion(root).version, main: './dist/index.js' });
    expect(hooks.beforePacking({ name: '@transport-ops/server', version: '1.0.0' })).toEqual({
      name: '@transport-ops/server',
      version: '1.0.0',
    });
  });
});

describe('a release moves the changelogs', () => {
  it('turns "Unreleased" (and a section written ahead for the version) into the release, merging their subsections', () => {
    const given = `${HEAD}## Unreleased\n\n### Added\n- New.\n\n## 1.2.0\n\nFollows contract 1.2.0.\n\n### Added\n- Ahead.\n\n### Changed\n- Changed.\n\n## 1.1.0\n\n- Old.\n`;
    expect(releaseChangelog(given, '1.2.0', '2026-12-01')).toBe(
      `${HEAD}## Unreleased\n\n## 1.2.0 (2026-12-01)\n\nFollows contract 1.2.0.\n\n### Added\n- New.\n- Ahead.\n\n### Changed\n- Changed.\n\n## 1.1.0\n\n- Old.\n`,
    );
    expect(
      releaseChangelog(
        `${HEAD}## 1.1.0 (2026-01-01)\n\nFirst.\n`,
        '1.2.0',
        '2026-12-01',
        'Compared with 1.1.0.\n\n### Other changes\n\n- x',
      ),
    ).toBe(`${HEAD}## 1.2.0 (2026-12-01)\n\nCompared with 1.1.0.\n\n### Other changes\n\n- x\n\n## 1.1.0 (2026-01-01)\n\nFirst.\n`);
  });
});

describe('pnpm contract:release', () => {
  it('makes the SDK pack as the plain version: before it a prerelease, after it the release', async () => {
    // A copy of the repository's contract, scripts, changelogs and the SDK's manifest, in a git repository of its own.
    const dir = join(work, 'release');
    for (const path of [
      'openapi',
      'scripts',
      'redocly.yaml',
      'packages/sdk/package.json',
      'packages/sdk/CHANGELOG.md',
      'packages/contract/dist/openapi.json',
    ])
      cpSync(join(root, path), join(dir, path), { recursive: true });
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
    git(dir, 'init', '-q');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'the repository');
    const before = sdkVersion(dir);
    const info = JSON.parse(readFileSync(join(dir, 'packages/contract/dist/openapi.json'), 'utf8')).info.version as string;
    expect(before.version).toMatch(new RegExp(`^${before.base.replace(/\./g, '\\.')}-next\\.\\d+$`));

    await run(process.execPath, [join(dir, 'scripts/contract-release.mjs'), '--date', '2026-12-01'], { cwd: dir });
    // What `pnpm gen` (run by the SDK's build before packing) writes from the released contract.
    writeFileSync(join(dir, 'packages/contract/dist/openapi.json'), JSON.stringify(bundleContract(join(dir, 'openapi/openapi.yaml'))));
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'release');
    const after = sdkVersion(dir);
    expect(after).toMatchObject({ version: info, reasons: [] });
    const sdkLog = readFileSync(join(dir, 'packages/sdk/CHANGELOG.md'), 'utf8');
    expect(sdkLog).toContain(`## Unreleased\n\n## ${info} (2026-12-01)\n`);
    expect(unreleasedEntries(sdkLog)).toEqual([]);
    expect(readFileSync(join(dir, 'openapi/CHANGELOG.md'), 'utf8')).toContain(`## ${info} (2026-12-01)\n\n`);
  });
});
