import { describe, it } from 'vitest';
import type { FilterSpecs } from '../../../src/lib/filter-spec.js';
import {
  COUNTRY_FILTERS,
  type CountryListParameters,
  STATE_FILTERS,
  type StateListParameters,
} from '../../../src/modules/geography/repository.js';
import { expectSpecMatchesContract } from '../../support/filter-spec.js';

/*
 * The country and state lists declare each filter once (`COUNTRY_FILTERS` and `STATE_FILTERS` in
 * geography/repository.ts), applied to the page and its count.
 */

// Compile-time proof (`pnpm typecheck`): a query parameter the contract adds to one of these
// operations without a spec leaves its spec incomplete. If the mapped type ever stopped being
// exhaustive, these directives would be unused and tsc would fail on them instead.
// @ts-expect-error Property 'newFilter' is missing: every filter parameter needs its spec.
export const incompleteCountries: FilterSpecs<CountryListParameters & { newFilter?: string }> = COUNTRY_FILTERS;
// @ts-expect-error Property 'newFilter' is missing: every filter parameter needs its spec.
export const incompleteStates: FilterSpecs<StateListParameters & { newFilter?: string }> = STATE_FILTERS;

describe('the filter specs of the country and state lists', () => {
  it('handle every query parameter the contract gives each list, each once', () => {
    expectSpecMatchesContract(COUNTRY_FILTERS, ['listConfigCountries']);
    expectSpecMatchesContract(STATE_FILTERS, ['listConfigStates']);
  });
});
