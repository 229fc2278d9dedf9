import { describe, it } from 'vitest';
import type { FilterSpecs } from '../../../src/lib/filter-spec.js';
import { FILTERS, type ListParameters } from '../../../src/modules/forum/topic-list-repository.js';
import { expectSpecMatchesContract } from '../../support/filter-spec.js';

/*
 * The forum topic list declares each filter once (`FILTERS` in forum/topic-list-repository.ts): the
 * page and its count apply it through the base query.
 */

// Compile-time proof (`pnpm typecheck`): a query parameter the contract adds to these operations
// without a spec leaves `FILTERS` incomplete. If the mapped type ever stopped being exhaustive,
// this directive would be unused and tsc would fail on it instead.
type WithNewParameter = ListParameters & { newFilter?: string };
// @ts-expect-error Property 'newFilter' is missing: every filter parameter needs its spec.
export const incomplete: FilterSpecs<WithNewParameter> = FILTERS;

describe('the filter spec of the forum topic list', () => {
  it('handles every query parameter the contract gives them, each once', () => {
    expectSpecMatchesContract(FILTERS, ['listForumTopics']);
  });
});
