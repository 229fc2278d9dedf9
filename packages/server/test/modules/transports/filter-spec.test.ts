import { describe, expect, it } from 'vitest';
import type { FilterSpecs } from '../../../src/lib/filter-spec.js';
import { FILTER_COLUMNS, FILTERS, type ListParameters } from '../../../src/modules/transports/repository.js';
import { expectSpecMatchesContract } from '../../support/filter-spec.js';

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

describe('the filter spec of the transport lists', () => {
  it('handles every query parameter the contract gives the lists and their export, each once', () => {
    expectSpecMatchesContract(FILTERS, ['listTransports', 'listAdminTransports', 'exportTransportsReport']);
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
