import fastJson from 'fast-json-stringify';
import { describe, expect, it } from 'vitest';
import { serializable } from '../../src/plugins/serialization.js';

type FjsSchema = Parameters<typeof fastJson>[0];

const category = {
  type: 'object',
  required: ['id', 'name'],
  properties: { id: { type: 'integer' }, name: { type: 'string' }, createdAt: { type: 'string', format: 'date-time' } },
};
const item = {
  type: 'object',
  required: ['id', 'category'],
  properties: { id: { type: 'integer' }, category: { description: 'null when none', oneOf: [category, { type: 'null' }] } },
};

describe('response schemas as the serializer is compiled from them', () => {
  it('turn a union of a typed schema and null into a nullable type, keeping the rest of the node', () => {
    expect((serializable(item) as typeof item).properties.category).toEqual({
      description: 'null when none',
      ...category,
      type: ['object', 'null'],
    });
    expect(serializable({ anyOf: [{ type: 'null' }, { type: 'string', enum: ['A', 'B'] }] })).toEqual({
      type: ['string', 'null'],
      enum: ['A', 'B'],
    });
  });

  it('rewrite a schema that contains itself once, keeping a union that closes the cycle', () => {
    const node: Record<string, unknown> = { type: 'object', properties: { id: { type: 'integer' } } };
    (node.properties as Record<string, unknown>).parent = { oneOf: [node, { type: 'null' }] };
    (node.properties as Record<string, unknown>).owner = {
      anyOf: [{ type: 'object', properties: { id: { type: 'integer' } } }, { type: 'null' }],
    };
    const out = serializable(node) as { properties: { parent: { oneOf: unknown[] }; owner: { type: string[] } } };
    expect(out.properties.parent.oneOf[0]).toBe(out);
    expect(out.properties.owner.type).toEqual(['object', 'null']);
  });

  it('leave other unions as the contract has them', () => {
    const twoObjects = { oneOf: [category, { type: 'object', properties: { code: { type: 'string' } } }] };
    expect(serializable(twoObjects)).toEqual(twoObjects);
    const untypedBranch = { anyOf: [{ allOf: [category] }, { type: 'null' }] };
    expect(serializable(untypedBranch)).toEqual(untypedBranch);
  });

  it('serialize the same JSON as the union, without validating each value against a branch', () => {
    const rows = [
      { id: 1, category: { id: 3, name: 'General', createdAt: '2026-11-24T10:00:00.000Z' } },
      { id: 2, category: null },
    ];
    const page = { type: 'array', items: item };
    const union = fastJson(page as FjsSchema);
    const nullable = fastJson(serializable(page) as FjsSchema);
    expect(nullable(rows)).toBe(union(rows));
    expect(JSON.parse(nullable(rows))).toEqual(rows);
    // Fields the contract does not declare never leave the server, in either form.
    const extra = [{ id: 4, secret: 'x', category: { id: 5, name: 'Routes', password: 'y' } }];
    expect(JSON.parse(nullable(extra))).toEqual([{ id: 4, category: { id: 5, name: 'Routes' } }]);
    // The code of each: the union's picks a branch with a schema validator per value.
    const code = (schema: unknown) => fastJson(schema as FjsSchema, { mode: 'standalone' }) as unknown as string;
    expect(code(page)).toContain('getSchemaValidator');
    expect(code(serializable(page))).not.toContain('getSchemaValidator');
  });
});
