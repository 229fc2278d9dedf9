import { describe, expect, it } from 'vitest';
import { handlers } from '../../src/modules/index.js';
import { operations } from '../support/contract.js';

describe('binding of the contract to handlers', () => {
  const contractIds = operations.map((o) => o.operationId).sort();
  const handlerIds = Object.keys(handlers).sort();

  it('has no handler for an operation the contract does not declare', () => {
    expect(handlerIds.filter((id) => !contractIds.includes(id as never))).toEqual([]);
  });

  it('binds every operationId of the contract to a handler', () => {
    expect(contractIds.filter((id) => !handlerIds.includes(id))).toEqual([]);
  });
});
