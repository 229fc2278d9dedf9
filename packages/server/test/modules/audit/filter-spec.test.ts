import { describe, it } from 'vitest';
import type { FilterSpecs } from '../../../src/lib/filter-spec.js';
import { FILTERS, type ListParameters } from '../../../src/modules/audit/repository.js';
import { expectSpecMatchesContract } from '../../support/filter-spec.js';

/*
 * The audit log's list declares each filter once (`FILTERS` in audit/repository.ts), applied to
 * the page and its count.
 */

// Compile-time proof (`pnpm typecheck`): a query parameter the contract adds to `listAuditLog`
// without a spec leaves `FILTERS` incomplete. If the mapped type ever stopped being exhaustive,
// this directive would be unused and tsc would fail on it instead.
// @ts-expect-error Property 'newFilter' is missing: every filter parameter needs its spec.
export const incomplete: FilterSpecs<ListParameters & { newFilter?: string }> = FILTERS;

describe('the filter spec of the audit log', () => {
  it('handles every query parameter the contract gives it, each once', () => {
    expectSpecMatchesContract(FILTERS, ['listAuditLog']);
  });
});
