import { describe, expect, it } from 'vitest';
import { listOperations, loadContract } from '../../../src/contract.js';
import type { FilterSpecs } from '../../../src/lib/filter-spec.js';
import { FILTER_COLUMNS, FILTERS, type ListParameters } from '../../../src/modules/transports/repository.js';

/*
 * The transport lists declare each filter once (`FILTERS` in transports/repository.ts): the page,
 * its count and the CSV export all apply it through the base query.
 */

// Compile-time proof (`pnpm typecheck`): a query parameter the contract adds to `listTransports`
// without a spec leaves `FILTERS` incomplete. If the mapped type ever stopped being exhaustive,
// this directive would be unused and tsc would fail on it instead.
type WithNewParameter = ListParameters & { newFilter?: string };
// @ts-expect-error Property 'newFilter' is missing: every filter parameter needs its spec.
export const incomplete: FilterSpecs<WithNewParameter> = FILTERS;

const PAGING = ['page', 'limit', 'cursor', 'sortBy', 'sortOrder'];

describe('the filter spec of the transport lists', () => {
  it('handles every query parameter the contract gives the lists and their export, each once', () => {
    const operations = listOperations().filter(({ operation }) =>
      ['listTransports', 'listAdminTransports', 'exportTransportsReport'].includes(operation.operationId),
    );
    expect(operations).toHaveLength(3);
    type Parameter = { name: string; in: string };
    const shared = (loadContract().components as { parameters?: Record<string, Parameter> }).parameters ?? {};
    const resolve = (p: Parameter | { $ref: string }) => ('$ref' in p ? shared[p.$ref.replace('#/components/parameters/', '')]! : p);
    const declared = new Set(
      operations.flatMap(({ operation }) =>
        ((operation.parameters ?? []) as Array<Parameter | { $ref: string }>)
          .map(resolve)
          .filter((p) => p.in === 'query')
          .map((p) => p.name),
      ),
    );
    const handled = [...Object.keys(FILTERS), ...PAGING];
    expect([...declared].filter((name) => !handled.includes(name))).toEqual([]);
    expect(Object.keys(FILTERS).filter((name) => !declared.has(name))).toEqual([]);
  });

  it('derives the columns the team walk must carry from the filters, each once', () => {
    expect(new Set(FILTER_COLUMNS).size).toBe(FILTER_COLUMNS.length);
    expect([...FILTER_COLUMNS].sort()).toEqual(
      [
        't.created_by',
        't.customer_id',
        't.loading_number',
        't.loading_point',
        't.product_label',
        't.status',
        't.unloading_point',
        't.vehicle_type_id',
      ].sort(),
    );
  });
});
