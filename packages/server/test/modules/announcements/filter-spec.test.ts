import { describe, it } from 'vitest';
import type { FilterSpecs } from '../../../src/lib/filter-spec.js';
import { ADMIN_FILTERS, type AdminListParameters } from '../../../src/modules/announcements/admin-repository.js';
import {
  IMPORTANT_FILTERS,
  type ImportantListParameters,
  USER_FILTERS,
  type UserListParameters,
} from '../../../src/modules/announcements/repository.js';
import { expectSpecMatchesContract } from '../../support/filter-spec.js';

/*
 * The announcement lists (user side, important ones, administration) declare each filter once
 * (`USER_FILTERS` and `IMPORTANT_FILTERS` in announcements/repository.ts, `ADMIN_FILTERS` in
 * announcements/admin-repository.ts): the page and its count apply it through the list's query.
 */

// Compile-time proof (`pnpm typecheck`): a query parameter the contract adds to one of these
// operations without a spec leaves its spec incomplete. If the mapped type ever stopped being
// exhaustive, these directives would be unused and tsc would fail on them instead.
// @ts-expect-error Property 'newFilter' is missing: every filter parameter needs its spec.
export const incompleteUser: FilterSpecs<UserListParameters & { newFilter?: string }> = USER_FILTERS;
// @ts-expect-error Property 'newFilter' is missing: every filter parameter needs its spec.
export const incompleteAdmin: FilterSpecs<AdminListParameters & { newFilter?: number }> = ADMIN_FILTERS;
// @ts-expect-error Property 'newFilter' is missing: every filter parameter needs its spec.
export const incompleteImportant: FilterSpecs<ImportantListParameters & { newFilter?: number }> = IMPORTANT_FILTERS;

describe('the filter specs of the announcement lists (user side and administration)', () => {
  it('handle every query parameter the contract gives each list, each once', () => {
    expectSpecMatchesContract(USER_FILTERS, ['listAnnouncements']);
    expectSpecMatchesContract(ADMIN_FILTERS, ['listAdminAnnouncements']);
    expectSpecMatchesContract(IMPORTANT_FILTERS, ['listImportantAnnouncements']);
  });
});
