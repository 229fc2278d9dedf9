// The bundled contract (what the server serves as /openapi.json and what a release keeps), semver
// helpers, and writes that a concurrent reader never sees half done.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { enrich } from '../gen/docs.mjs';

export const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const redocly = join(root, 'node_modules/.bin/redocly');
/** Redocly's banners (Node 20 end of life, update notices, announcements) kept out of the scripts' output. */
export const redoclyEnv = {
  ...process.env,
  REDOCLY_TELEMETRY: 'off',
  REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
  REDOCLY_SUPPRESS_NOTIFICATIONS: 'true',
};

/** Runs the Redocly CLI from the repository root (so `redocly.yaml` applies); throws with its output. */
export function runRedocly(args) {
  try {
    return execFileSync(redocly, args, { cwd: root, stdio: 'pipe', env: redoclyEnv, encoding: 'utf8' });
  } catch (error) {
    const output = `${error.stdout ?? ''}${error.stderr ?? ''}`.trim();
    throw new Error(`redocly ${args[0]} failed${output ? `:\n${output}` : ''}`);
  }
}

/**
 * The split contract whose root is `entry` as one document: `redocly bundle` (components stay
 * `$ref`s), plus the generated error-code table in `info.description`. Exactly what `pnpm gen`
 * writes to packages/contract/dist/openapi.json.
 */
export function bundleContract(entry = join(root, 'openapi/openapi.yaml')) {
  const dir = mkdtempSync(join(tmpdir(), 'contract-bundle-'));
  try {
    const out = join(dir, 'openapi.json');
    runRedocly(['bundle', entry, '--output', out]);
    return enrich(JSON.parse(readFileSync(out, 'utf8')), { withSamples: false });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Writes through a temporary file and a rename: a reader sees the old text or the new, never a part. */
export function writeAtomic(file, text) {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, file);
}

/**
 * Writes a file only when its text changed (atomically). An unchanged file keeps its modification
 * time unless `touch` is set, so a build step that compares times does not see a change.
 * Returns whether the text changed.
 */
export function writeIfChanged(file, text, { touch = false } = {}) {
  if (existsSync(file) && readFileSync(file, 'utf8') === text) {
    if (touch) {
      const now = new Date();
      utimesSync(file, now, now);
    }
    return false;
  }
  writeAtomic(file, text);
  return true;
}

const SEMVER = /^(\d+)\.(\d+)\.(\d+)$/;
/** `[major, minor, patch]` of a plain `x.y.z` version, else undefined (pre-releases are not used here). */
export function parseVersion(text) {
  const match = SEMVER.exec(String(text));
  return match ? match.slice(1).map(Number) : undefined;
}
export function compareVersions(a, b) {
  const [x, y] = [parseVersion(a), parseVersion(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] - y[i];
  return 0;
}
/** The version after `version` for a change of `impact` (`major`, `minor`, `patch`). */
export function bump(version, impact) {
  const [major, minor, patch] = parseVersion(version);
  if (impact === 'major') return `${major + 1}.0.0`;
  if (impact === 'minor') return `${major}.${minor + 1}.0`;
  return `${major}.${minor}.${patch + 1}`;
}

/** Released versions kept under `dir` (`<x.y.z>.json`), oldest first. */
export function releases(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .map((name) => /^(\d+\.\d+\.\d+)\.json$/.exec(name)?.[1])
    .filter(Boolean)
    .sort(compareVersions);
}
