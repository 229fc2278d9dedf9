import { expect } from 'vitest';
import { PAGING } from '../../src/lib/filter-spec.js';
import type { OperationId } from '../../src/http/handlers.js';
import { queryParameterNames } from './contract.js';

/**
 * A list's filter spec against the contract at run time: every query parameter of its operations
 * is a filter of the spec or a paging one, and every filter of the spec is such a parameter (the
 * type test beside each call proves the first half at compile time).
 */
export function expectSpecMatchesContract(filters: object, operationIds: OperationId[]): void {
  const declared = queryParameterNames(operationIds);
  expect(declared.length).toBeGreaterThan(0);
  const handled: string[] = [...Object.keys(filters), ...PAGING];
  expect(declared.filter((name) => !handled.includes(name))).toEqual([]);
  expect(Object.keys(filters).filter((name) => !declared.includes(name))).toEqual([]);
}
