import { describe, expect, it } from 'vitest';
import { loadContract } from '../../src/contract.js';

const INT32_MAX = 2147483647;

/** Every schema of the bundled document with `integer` or `number` among its types, with its JSON pointer. */
function numericSchemas(node: unknown, path = '#', out: Array<{ path: string; schema: Record<string, unknown> }> = []) {
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) numericSchemas(item, `${path}/${i}`, out);
  } else if (node !== null && typeof node === 'object') {
    const schema = node as Record<string, unknown>;
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (types.includes('integer') || types.includes('number')) out.push({ path, schema });
    for (const [key, value] of Object.entries(schema)) numericSchemas(value, `${path}/${key}`, out);
  }
  return out;
}

describe('numbers of the contract', () => {
  const all = numericSchemas(loadContract());

  it('finds the numbers to check', () => {
    expect(all.length).toBeGreaterThan(300);
  });

  it('give every integer and number a lower and an upper bound', () => {
    const unbounded = all
      .filter(
        ({ schema }) =>
          (schema.minimum ?? schema.exclusiveMinimum) === undefined || (schema.maximum ?? schema.exclusiveMaximum) === undefined,
      )
      .map(({ path }) => path);
    expect(unbounded).toEqual([]);
  });

  it('keep integers within what a PostgreSQL integer column holds, and every bound finite', () => {
    const outside = all
      .filter(({ schema }) => {
        const min = Number(schema.minimum ?? schema.exclusiveMinimum);
        const max = Number(schema.maximum ?? schema.exclusiveMaximum);
        const integer = schema.type === 'integer' || (Array.isArray(schema.type) && schema.type.includes('integer'));
        return !Number.isFinite(min) || !Number.isFinite(max) || (integer && (min < -INT32_MAX - 1 || max > INT32_MAX));
      })
      .map(({ path }) => path);
    expect(outside).toEqual([]);
  });
});
