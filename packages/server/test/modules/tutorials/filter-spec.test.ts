import { describe, it } from 'vitest';
import type { FilterSpecs } from '../../../src/lib/filter-spec.js';
import { ADMIN_FILTERS, type AdminListParameters } from '../../../src/modules/tutorials/admin-repository.js';
import { FILTERS, type ListParameters, SEARCH_FILTERS, type SearchParameters } from '../../../src/modules/tutorials/repository.js';
import { expectSpecMatchesContract } from '../../support/filter-spec.js';

/*
 * The tutorial lists (published and administration) and the search declare each filter once
 * (`FILTERS` and `SEARCH_FILTERS` in tutorials/repository.ts, `ADMIN_FILTERS` in
 * tutorials/admin-repository.ts): the page and its count apply it through the list's query.
 */

// Compile-time proof (`pnpm typecheck`): a query parameter the contract adds to one of these
// operations without a spec leaves its spec incomplete. If the mapped type ever stopped being
// exhaustive, these directives would be unused and tsc would fail on them instead.
// @ts-expect-error Property 'newFilter' is missing: every filter parameter needs its spec.
export const incompleteUser: FilterSpecs<ListParameters & { newFilter?: string }> = FILTERS;
// @ts-expect-error Property 'newFilter' is missing: every filter parameter needs its spec.
export const incompleteAdmin: FilterSpecs<AdminListParameters & { newFilter?: number }> = ADMIN_FILTERS;
// @ts-expect-error Property 'newFilter' is missing: every filter parameter needs its spec.
export const incompleteSearch: FilterSpecs<SearchParameters & { newFilter?: string }> = SEARCH_FILTERS;

describe('the filter specs of the tutorial lists (published and administration)', () => {
  it('handle every query parameter the contract gives each list, each once', () => {
    expectSpecMatchesContract(FILTERS, ['listTutorials']);
    expectSpecMatchesContract(ADMIN_FILTERS, ['listAdminTutorials']);
    expectSpecMatchesContract(SEARCH_FILTERS, ['searchTutorials']);
  });
});
