// The breaking-change gate (`pnpm contract:diff`), run on temporary copies of the contract against
// a release made from the contract as it is, so the cases hold whatever the contract's version.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
// @ts-expect-error: plain JavaScript module without declarations
import { bump, bundleContract } from '../../scripts/lib/contract.mjs';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const gateScript = join(root, 'scripts/contract-diff.mjs');
let work: string;
let version: string;

/** A copy of the contract under `work/<name>/openapi`, changed by `edit`, with an SDK package.json of `sdkVersion`. */
function variant(name: string, edit: (dir: string) => void, sdkVersion = version) {
  const dir = join(work, name);
  cpSync(join(root, 'openapi'), join(dir, 'openapi'), { recursive: true, filter: (src) => !src.includes('releases') });
  writeFileSync(join(dir, 'sdk.json'), JSON.stringify({ name: '@transport-ops/sdk', version: sdkVersion }));
  edit(join(dir, 'openapi'));
  return dir;
}
function editYaml(file: string, change: (doc: any) => void) {
  const doc = parse(readFileSync(file, 'utf8'));
  change(doc);
  writeFileSync(file, stringify(doc, { lineWidth: 0 }));
}
const setVersion = (to: string) => (dir: string) =>
  editYaml(join(dir, 'openapi.yaml'), (doc) => {
    doc.info.version = to;
  });
const requireVehicleTypeFilter = (dir: string) => {
  // The filter is in the parameter set of the three transport lists (components/parameter-sets):
  // listTransports gets its own copy of the set, with the filter required under a name of its own.
  const sets = join(dir, 'components/parameter-sets');
  const shared = parse(readFileSync(join(sets, 'TransportListFilters.yaml'), 'utf8')) as Record<string, object>;
  const own = Object.fromEntries(
    Object.entries(shared).map(([name, parameter]) =>
      name === 'TransportVehicleTypeId' ? ['RequiredVehicleTypeId', Object.assign({}, parameter, { required: true })] : [name, parameter],
    ),
  );
  writeFileSync(join(sets, 'RequiredVehicleType.yaml'), stringify(own));
  editYaml(join(dir, 'paths/trade_transports.yaml'), (doc) => {
    doc.get['x-parameters'] = { $ref: '../components/parameter-sets/RequiredVehicleType.yaml' };
  });
};
const addOptionalRequestField = (dir: string) =>
  editYaml(join(dir, 'components/schemas/TransportCreateRequest.yaml'), (doc) => {
    doc.properties.internalReference = { type: 'string', maxLength: 64, description: 'A reference of the caller.' };
  });

/** Runs the gate's command on a variant; `code` 0 when it passes. */
async function gate(dir: string, accepted?: object) {
  const args = [
    gateScript,
    '--contract',
    join(dir, 'openapi/openapi.yaml'),
    '--releases',
    join(work, 'releases'),
    '--sdk',
    join(dir, 'sdk.json'),
  ];
  if (accepted) {
    writeFileSync(join(dir, 'accepted.yaml'), stringify(accepted));
    args.push('--accepted', join(dir, 'accepted.yaml'));
  } else args.push('--accepted', join(dir, 'none.yaml'));
  try {
    const { stdout, stderr } = await run(process.execPath, args, { cwd: root });
    return { code: 0, output: stdout + stderr };
  } catch (error: any) {
    return { code: error.code as number, output: `${error.stdout}${error.stderr}` };
  }
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'contract-gate-'));
  const released = bundleContract(join(root, 'openapi/openapi.yaml'));
  version = released.info.version;
  mkdirSync(join(work, 'releases'));
  writeFileSync(join(work, 'releases', `${version}.json`), JSON.stringify(released));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe.concurrent('pnpm contract:diff', { timeout: 900_000 }, () => {
  it('passes the unchanged contract and says there is nothing to release', async () => {
    const result = await gate(variant('unchanged', () => {}));
    expect(result.output).toContain(`contract ${version} against release ${version}: 0 major, 0 minor, 0 patch`);
    expect(result.code).toBe(0);
  });

  it('fails when an optional query parameter of listTransports becomes required, naming it', async () => {
    const result = await gate(variant('required-parameter', requireVehicleTypeFilter));
    expect(result.output).toMatch(/major\s+GET \/trade\/transports · parameters\/\d+: `vehicleTypeId` query parameter became required/);
    expect(result.output).toContain(`breaking change(s) against release ${version}`);
    expect(result.code).toBe(1);
  });

  it('passes that breaking change with a new major info.version (and the SDK on the same line)', async () => {
    const major = bump(version, 'major');
    const dir = variant(
      'required-parameter-major',
      (d) => {
        requireVehicleTypeFilter(d);
        setVersion(major)(d);
      },
      major,
    );
    const result = await gate(dir);
    expect(result.output).toContain('✔ contract gate passed (changes against');
    expect(result.code).toBe(0);
  });

  it('passes that breaking change in a minor version when it is a reviewed exception with a reason, and fails a stale one', async () => {
    const minor = bump(version, 'minor');
    const dir = variant(
      'required-parameter-accepted',
      (d) => {
        requireVehicleTypeFilter(d);
        setVersion(minor)(d);
      },
      minor,
    );
    const refused = await gate(dir);
    expect(refused.output).toContain('or move info.version to');
    expect(refused.code).toBe(1);
    const { stdout } = await run(
      process.execPath,
      [
        gateScript,
        '--json',
        '--contract',
        join(dir, 'openapi/openapi.yaml'),
        '--releases',
        join(work, 'releases'),
        '--sdk',
        join(dir, 'sdk.json'),
      ],
      { cwd: root },
    ).catch((error) => error);
    const pointer = JSON.parse(stdout).changes.find((c: any) =>
      c.messages.some((m: any) => m.rule === 'parameter-became-required'),
    ).pointer;
    expect(pointer).toMatch(/^#\/paths\/~1trade~1transports\/get\/parameters\/\d+$/);

    const reason = 'Clients always send it (a test reason for the gate).';
    const accepted = await gate(dir, { base: version, changes: [{ rule: 'parameter-became-required', pointer, reason }] });
    expect(accepted.output).toContain('major (accepted)');
    expect(accepted.code).toBe(0);

    const stale = await gate(
      variant('accepted-stale', () => {}),
      {
        base: version,
        changes: [{ rule: 'parameter-became-required', pointer, reason }],
      },
    );
    expect(stale.output).toContain(`matches no change against ${version}: remove it`);
    expect(stale.code).toBe(1);
  });

  it('passes an added optional request field with the next minor version, and fails it without the bump', async () => {
    const minor = bump(version, 'minor');
    const bumped = await gate(
      variant(
        'optional-field-minor',
        (d) => {
          addOptionalRequestField(d);
          setVersion(minor)(d);
        },
        minor,
      ),
    );
    expect(bumped.output).toMatch(/minor\s+.*internalReference/);
    expect(bumped.output).toContain('require: minor');
    expect(bumped.code).toBe(0);

    const unbumped = await gate(variant('optional-field-same-version', addOptionalRequestField));
    expect(unbumped.output).toContain(`these additive changes need at least ${minor}`);
    expect(unbumped.code).toBe(1);
  });

  it("fails when the SDK's major.minor is not the contract's", async () => {
    const result = await gate(variant('sdk-off-line', () => {}, bump(version, 'minor')));
    expect(result.output).toContain(`must share major.minor with the contract's info.version (${version})`);
    expect(result.code).toBe(1);
  });
});

describe('the repository', () => {
  it("keeps the SDK on the contract's major.minor", () => {
    const sdk = JSON.parse(readFileSync(join(root, 'packages/sdk/package.json'), 'utf8')).version as string;
    const contract = parse(readFileSync(join(root, 'openapi/openapi.yaml'), 'utf8')).info.version as string;
    expect(sdk.split('.').slice(0, 2)).toEqual(contract.split('.').slice(0, 2));
  });
});
