import { describe, it } from 'vitest';
import type { FilterSpecs } from '../../../src/lib/filter-spec.js';
import { DELIVERY_FILTERS, type DeliveryListParameters } from '../../../src/modules/webhooks/repository.js';
import { expectSpecMatchesContract } from '../../support/filter-spec.js';

/*
 * An endpoint's delivery list declares each filter once (`DELIVERY_FILTERS` in
 * webhooks/repository.ts), applied to the page and its count.
 */

// Compile-time proof (`pnpm typecheck`): a query parameter the contract adds to
// `listWebhookDeliveries` without a spec leaves `DELIVERY_FILTERS` incomplete. If the mapped type
// ever stopped being exhaustive, this directive would be unused and tsc would fail on it instead.
// @ts-expect-error Property 'newFilter' is missing: every filter parameter needs its spec.
export const incomplete: FilterSpecs<DeliveryListParameters & { newFilter?: string }> = DELIVERY_FILTERS;

describe('the filter spec of the delivery list', () => {
  it('handles every query parameter the contract gives it, each once', () => {
    expectSpecMatchesContract(DELIVERY_FILTERS, ['listWebhookDeliveries']);
  });
});
