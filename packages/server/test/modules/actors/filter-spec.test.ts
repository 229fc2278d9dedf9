import { describe, it } from 'vitest';
import type { FilterSpecs } from '../../../src/lib/filter-spec.js';
import { FILTERS, type ListParameters } from '../../../src/modules/actors/repository.js';
import { expectSpecMatchesContract } from '../../support/filter-spec.js';

/*
 * The actor lists (administrators, agents, customers) declare each filter once (`FILTERS` in
 * actors/repository.ts): the page and its count apply it through the base query.
 */

// Compile-time proof (`pnpm typecheck`): a query parameter the contract adds to these operations
// without a spec leaves `FILTERS` incomplete. If the mapped type ever stopped being exhaustive,
// this directive would be unused and tsc would fail on it instead.
type WithNewParameter = ListParameters & { newFilter?: string };
// @ts-expect-error Property 'newFilter' is missing: every filter parameter needs its spec.
export const incomplete: FilterSpecs<WithNewParameter> = FILTERS;

describe('the filter spec of the actor lists (administrators, agents, customers)', () => {
  it('handles every query parameter the contract gives them, each once', () => {
    expectSpecMatchesContract(FILTERS, ['listAdmins', 'listAgents', 'listCustomers']);
  });
});
