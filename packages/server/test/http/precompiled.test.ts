import { describe, expect, it } from 'vitest';
import { filesOf, lazyValidator, type Validate } from '../../src/http/precompiled.js';
import { createAjv } from '../../src/plugins/validation.js';

describe('precompiled request validators', () => {
  const schema = { type: 'object', properties: { page: { type: 'integer', minimum: 1 } }, required: ['page'] };

  it('are loaded on their first use, not when the routes are built', () => {
    let loads = 0;
    const compiled = createAjv(true).compile(schema) as unknown as Validate;
    const validate = lazyValidator(() => {
      loads += 1;
      return compiled;
    });
    expect(loads).toBe(0);
    expect(validate({ page: '2' })).toBe(true);
    expect(loads).toBe(1);
  });

  it('report the errors of the function they load, as Fastify reads them', () => {
    const validate = lazyValidator(() => createAjv(true).compile(schema) as unknown as Validate);
    expect(validate({ page: 0 })).toBe(false);
    expect(validate.errors).toMatchObject([{ instancePath: '/page', keyword: 'minimum' }]);
    expect(validate({ page: 3 })).toBe(true);
    expect(validate.errors).toBeNull();
  });

  it('are written one file each, indexed by schema hash', () => {
    const { files, index } = filesOf(
      new Map([
        ['hash-a', 'module.exports = 1;'],
        ['hash-b', 'module.exports = 2;'],
      ]),
      'v',
    );
    expect(index).toEqual({ 'hash-a': 'v0', 'hash-b': 'v1' });
    expect([...files]).toEqual([
      ['v0', 'module.exports = 1;'],
      ['v1', 'module.exports = 2;'],
    ]);
  });
});
