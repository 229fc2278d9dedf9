// Parameter sets (`x-parameters`, openapi/plugins/parameter-sets.mjs): the transport lists share
// their filters through one set; the bundle holds plain OpenAPI; lint checks a set's parameters.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
// @ts-expect-error: plain JavaScript module without declarations
import { bundleContract, runRedocly } from '../../scripts/lib/contract.mjs';
import { bundled, deref, operations } from './document.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const SET = join(root, 'openapi/components/parameter-sets/TransportListFilters.yaml');
const set = parse(readFileSync(SET, 'utf8')) as Record<string, { $ref?: string; name?: string }>;
const LISTS = ['listTransports', 'listAdminTransports', 'exportTransportsReport'];

const work = mkdtempSync(join(tmpdir(), 'parameter-sets-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
/** A copy of the contract with the set file replaced by `text`. */
function withSet(name: string, text: string): string {
  const dir = join(work, name);
  cpSync(join(root, 'openapi'), dir, { recursive: true, filter: (src) => !src.includes('releases') });
  writeFileSync(join(dir, 'components/parameter-sets/TransportListFilters.yaml'), text);
  return join(dir, 'openapi.yaml');
}

describe('the transport list filters (a parameter set)', () => {
  it('are parameters of each of the three lists, first and as component references, and nothing else names a set in the bundle', () => {
    expect(JSON.stringify(bundled)).not.toContain('x-parameters');
    for (const id of LISTS) {
      const { op } = operations.find((o) => o.op.operationId === id)!;
      const refs = (op.parameters as Array<{ $ref: string }>).slice(0, Object.keys(set).length).map((p) => p.$ref);
      expect(refs, id).toEqual(Object.keys(set).map((name) => `#/components/parameters/${name}`));
      const names = (op.parameters as object[]).map((p) => deref<{ name: string; in: string }>(p)).map((p) => `${p.in}:${p.name}`);
      expect(new Set(names).size, `${id}: ${names.join(', ')}`).toBe(names.length);
    }
  });

  it('keep their definitions, inline ones moved into components.parameters under their names', () => {
    for (const [name, entry] of Object.entries(set)) {
      const component = bundled.components.parameters[name];
      expect(component, name).toBeDefined();
      if (entry.$ref === undefined) expect(component.name, name).toBe(entry.name);
    }
    expect(bundled.components.parameters.TransportStatusFilter.schema).toEqual({ $ref: '#/components/schemas/TransportStatus' });
  });

  it('stay inline in a dereferenced document (what `redocly respect` reads for the journeys)', () => {
    const out = join(work, 'dereferenced.json');
    runRedocly(['bundle', join(root, 'openapi/openapi.yaml'), '--dereferenced', '--output', out]);
    const document = JSON.parse(readFileSync(out, 'utf8'));
    const listTransports = document.paths['/trade/transports'].get.parameters as Array<{ name: string; $ref?: string }>;
    expect(listTransports.filter((p) => p.$ref !== undefined)).toEqual([]);
    expect(listTransports.map((p) => p.name)).toEqual([
      ...Object.keys(set).map((name) => bundled.components.parameters[name].name),
      'page',
      'limit',
      'cursor',
      'sortBy',
      'sortOrder',
    ]);
  });

  it('refuse a reference named otherwise than its file, and two different parameters under one name', () => {
    const misnamed = withSet('misnamed', stringify(Object.assign({}, set, { Since: { $ref: '../parameters/StartDate.yaml' } })));
    expect(() => bundleContract(misnamed)).toThrow(/#\/components\/parameters\/StartDate "Since": name it as its file/);
    const clash = withSet('clash', stringify(Object.assign({}, set, { Page: { name: 'page', in: 'query', schema: { type: 'string' } } })));
    expect(() => bundleContract(clash)).toThrow(/components\.parameters\.Page exists already/);
  });

  it('are checked by lint as parameters: one without `in` fails it', () => {
    const broken = Object.assign({}, set, { TransportCustomerId: { name: 'customerId', schema: { type: 'integer' } } });
    const file = withSet('broken', stringify(broken));
    expect(() => runRedocly(['lint', file, '--config', join(root, 'redocly.yaml'), '--format', 'stylish'])).toThrow(
      /TransportListFilters\.yaml:\s*\S+\s+error\s+struct\s+The field `in` must be present on this level/,
    );
    // The contract as it is passes the same command (runRedocly throws on a failed lint).
    expect(() => runRedocly(['lint', join(root, 'openapi/openapi.yaml'), '--config', join(root, 'redocly.yaml')])).not.toThrow();
  });
});
