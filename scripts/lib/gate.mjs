// The contract's breaking-change gate: `redocly diff` (diff-recommended rules) of the contract against
// its latest release, reviewed exceptions, and the version rules (openapi/releases/README.md).
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { bump, bundleContract, compareVersions, parseVersion, releases, root, runRedocly } from './contract.mjs';

export const defaults = {
  contract: join(root, 'openapi/openapi.yaml'),
  releasesDir: join(root, 'openapi/releases'),
  accepted: join(root, 'openapi/releases/accepted-changes.yaml'),
  sdkPackage: join(root, 'packages/sdk/package.json'),
};
const diffConfig = join(root, 'openapi/releases/diff.redocly.yaml');
const RANK = { none: 0, patch: 1, minor: 2, major: 3 };

/** `{ base, changes: [{ rule, pointer, reason }] }` from the accepted-changes file (absent = none). */
export function readAccepted(file) {
  if (!existsSync(file)) return { base: undefined, changes: [] };
  const data = parse(readFileSync(file, 'utf8')) ?? {};
  return { base: data.base === undefined ? undefined : String(data.base), changes: data.changes ?? [] };
}

/** `GET /trade/transports · parameters/4` for `#/paths/~1trade~1transports/get/parameters/4`. */
export function where(pointer) {
  const parts = pointer
    .replace(/^#\//, '')
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (parts[0] === 'paths' && parts.length > 1) {
    const methods = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options', 'trace'];
    const head = methods.includes(parts[2]) ? `${parts[2].toUpperCase()} ${parts[1]}` : parts[1];
    const rest = parts.slice(methods.includes(parts[2]) ? 3 : 2).join('/');
    return rest ? `${head} · ${rest}` : head;
  }
  return parts.join('/');
}

/**
 * Runs the gate. Returns `{ ok, problems, base, version, required, changes }`; each change has
 * `impact` (redocly's), `effective` (after accepted exceptions), `accepted` (the reason) and its
 * messages. Throws when the contract cannot be bundled or diffed.
 */
export function runGate(options = {}) {
  const o = { ...defaults, ...options };
  const revision = bundleContract(o.contract);
  const version = String(revision.info.version);
  const problems = [];
  if (!parseVersion(version)) problems.push(`info.version must be a plain semver x.y.z, got ${version}`);
  const sdk = JSON.parse(readFileSync(o.sdkPackage, 'utf8')).version;
  if (parseVersion(version) && parseVersion(sdk)?.slice(0, 2).join('.') !== parseVersion(version).slice(0, 2).join('.'))
    problems.push(
      `the SDK's version (${sdk}, packages/sdk/package.json) must share major.minor with the contract's info.version (${version})`,
    );

  const released = releases(o.releasesDir);
  const base = released.at(-1);
  if (!base) return { ok: problems.length === 0, problems, base, version, required: 'none', changes: [], revision };

  const dir = mkdtempSync(join(tmpdir(), 'contract-diff-'));
  let report;
  try {
    const revisionFile = join(dir, `${version}.json`);
    writeFileSync(revisionFile, JSON.stringify(revision));
    const out = join(dir, 'diff.json');
    runRedocly([
      'diff',
      join(o.releasesDir, `${base}.json`),
      revisionFile,
      '--config',
      diffConfig,
      '--format',
      'json',
      '--fail-on',
      'none',
      '--output',
      out,
    ]);
    report = JSON.parse(readFileSync(out, 'utf8'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const accepted = readAccepted(o.accepted);
  if (accepted.changes.length && accepted.base !== base)
    problems.push(
      `${o.accepted}: its exceptions were reviewed against release ${accepted.base ?? '(no base)'}, the latest release is ${base}; review them again or remove them`,
    );
  const used = new Set();
  const changes = report.changes.map((change) => {
    const rules = change.verdicts.map((v) => v.ruleId);
    const index = accepted.changes.findIndex((a) => a.pointer === change.path && rules.includes(a.rule));
    const exception = accepted.base === base && index >= 0 ? accepted.changes[index] : undefined;
    if (exception) used.add(index);
    // A reviewed breaking change still needs a new minor version (clients read about it in the changelog).
    const effective = exception && change.impact === 'major' ? 'minor' : change.impact;
    return {
      pointer: change.path,
      where: where(change.path),
      kind: change.kind,
      property: change.property,
      impact: change.impact,
      effective,
      accepted: exception?.reason,
      messages: change.verdicts.map((v) => ({ rule: v.ruleId, impact: v.impact, message: v.message })),
    };
  });
  accepted.changes.forEach((entry, i) => {
    if (!entry.reason || String(entry.reason).trim().length < 10)
      problems.push(`accepted change ${entry.rule} at ${entry.pointer}: a reason (what breaks, why it is acceptable) is required`);
    if (accepted.base === base && !used.has(i))
      problems.push(`accepted change ${entry.rule} at ${entry.pointer} matches no change against ${base}: remove it`);
  });

  const required = changes.reduce((max, c) => (RANK[c.effective] > RANK[max] ? c.effective : max), 'none');
  const breaking = changes.filter((c) => c.effective === 'major');
  if (parseVersion(version)) {
    const [major] = parseVersion(version);
    const [baseMajor] = parseVersion(base);
    if (compareVersions(version, base) < 0) problems.push(`info.version ${version} is older than the latest release ${base}`);
    else if (breaking.length && major === baseMajor)
      problems.push(
        `${breaking.length} breaking change(s) against release ${base}: keep them compatible, list a reviewed exception in openapi/releases/accepted-changes.yaml, or move info.version to ${bump(base, 'major')}`,
      );
    else if (required === 'minor' && compareVersions(version, bump(base, 'minor')) < 0)
      problems.push(
        `info.version ${version}: these additive changes need at least ${bump(base, 'minor')} (the next minor after release ${base})`,
      );
  }
  return { ok: problems.length === 0, problems, base, version, required, changes, revision };
}

const HEADINGS = { major: 'Breaking', minor: 'Added and changed', patch: 'Other changes' };

/** What changed, in words: the rules' messages, else the kind of change and the property. */
const describe = (c) =>
  c.messages.length ? c.messages.map((m) => m.message).join(' ') : `${c.kind}${c.property ? ` \`${c.property}\`` : ''}.`;

/** The change list as Markdown (a changelog entry's body); accepted breaking changes are listed with their reason. */
export function markdown(result) {
  const lines = [];
  for (const impact of ['major', 'minor', 'patch']) {
    const items = result.changes.filter((c) => c.impact === impact);
    if (!items.length) continue;
    lines.push(`### ${HEADINGS[impact]}`, '');
    for (const c of items) {
      lines.push(`- \`${c.where}\`: ${describe(c)}${c.accepted ? ` Accepted: ${c.accepted}` : ''}`);
    }
    lines.push('');
  }
  return lines.join('\n');
}

/** The change list for a terminal, one line per change. */
export function summary(result) {
  if (!result.base) return `no release under openapi/releases yet: nothing to compare (info.version ${result.version})`;
  const count = (i) => result.changes.filter((c) => c.impact === i).length;
  const lines = [
    `contract ${result.version} against release ${result.base}: ${count('major')} major, ${count('minor')} minor, ${count('patch')} patch`,
  ];
  for (const c of [...result.changes].sort((a, b) => RANK[b.impact] - RANK[a.impact])) {
    const tag = c.accepted ? `${c.impact} (accepted)` : c.impact;
    const rules = c.messages.length ? ` [${c.messages.map((m) => m.rule).join(', ')}]` : '';
    lines.push(`  ${tag.padEnd(16)} ${c.where}: ${describe(c)}${rules}`);
  }
  return lines.join('\n');
}
