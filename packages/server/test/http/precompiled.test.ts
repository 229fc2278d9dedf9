import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { _ } from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { afterAll, describe, expect, it } from 'vitest';
import { evaluateBuilt, filesOf, lazyValidator, type Validate } from '../../src/http/precompiled.js';
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

describe('files of the build', () => {
  // Inside the package, as dist/precompiled is: the files' `require` resolves from where they lie.
  const cache = fileURLToPath(new URL('../../node_modules/.cache', import.meta.url));
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, 'precompiled-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('evaluate to the validator they were written from, the runtime helpers they require found', () => {
    const ajv = createAjv(true, { code: { source: true, formats: _`require("ajv-formats/dist/formats").fullFormats` } });
    const standalone = ((standaloneCode as unknown as { default?: unknown }).default ?? standaloneCode) as (
      a: unknown,
      f: unknown,
    ) => string;
    const schema = {
      type: 'object',
      properties: { at: { type: 'string', format: 'date-time' }, n: { type: 'integer' } },
      required: ['at'],
    };
    const file = join(dir, 'v0.cjs');
    writeFileSync(file, standalone(ajv, ajv.compile(schema)));
    const validate = evaluateBuilt(file) as Validate;
    expect(validate({ at: '2026-11-29T10:00:00Z', n: '3' })).toBe(true);
    expect(validate({ at: 'yesterday' })).toBe(false);
    expect(validate.errors).toMatchObject([{ instancePath: '/at', keyword: 'format' }]);
  });

  it('evaluate to the serializer they were written from', () => {
    const code = SerializerSelector()({}, { mode: 'standalone' }) as unknown as (route: { schema: object }) => string;
    const file = join(dir, 's0.cjs');
    writeFileSync(file, code({ schema: { type: 'object', properties: { id: { type: 'integer' } } } }));
    const serialize = evaluateBuilt(file) as (value: unknown) => string;
    expect(serialize({ id: 7, secret: 'x' })).toBe('{"id":7}');
  });
});
