import { describe, it } from 'vitest';
import type { FilterSpecs } from '../../../src/lib/filter-spec.js';
import { FILTERS, type ListParameters } from '../../../src/modules/users/account-repository.js';
import { SESSION_FILTERS, type SessionListParameters } from '../../../src/modules/users/repository.js';
import { expectSpecMatchesContract } from '../../support/filter-spec.js';

/*
 * The account and session lists declare each filter once (`FILTERS` in users/account-repository.ts,
 * `SESSION_FILTERS` in users/repository.ts): the page and its count apply it through the list's
 * query.
 */

// Compile-time proof (`pnpm typecheck`): a query parameter the contract adds to one of these
// operations without a spec leaves its spec incomplete. If the mapped type ever stopped being
// exhaustive, these directives would be unused and tsc would fail on them instead.
// @ts-expect-error Property 'newFilter' is missing: every filter parameter needs its spec.
export const incompleteAccounts: FilterSpecs<ListParameters & { newFilter?: string }> = FILTERS;
// @ts-expect-error Property 'newFilter' is missing: every filter parameter needs its spec.
export const incompleteSessions: FilterSpecs<SessionListParameters & { newFilter?: boolean }> = SESSION_FILTERS;

describe('the filter specs of the account and session lists', () => {
  it('handle every query parameter the contract gives each list, each once', () => {
    expectSpecMatchesContract(FILTERS, ['listUsers']);
    expectSpecMatchesContract(SESSION_FILTERS, ['listSessions']);
  });
});
