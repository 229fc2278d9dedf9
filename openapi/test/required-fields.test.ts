import { describe, expect, it } from 'vitest';
import { bundled, operations } from './document.js';

/**
 * A field the server always sends is `required` in the contract (nullable where it can be empty):
 * the generated types then make a mapper that drops it fail `pnpm typecheck`. The fields below are
 * the only optional ones in a success answer or a webhook body, each for a stated reason.
 */
const OPTIONAL: Record<string, string> = {
  // The plain PageMeta of the lists without keyset paging: those lists do not send them.
  // KeysetPageMeta and EstimatedPageMeta require them where they are sent.
  'PageMeta.total_is_exact': 'sent by the lists that say whether the total is exact (EstimatedPageMeta, KeysetPageMeta)',
  'PageMeta.next_cursor': 'sent by keyset-paged lists only (KeysetPageMeta)',
  'EstimatedPageMeta.next_cursor': 'never sent (these lists have no keyset paging); declared as the released PageMeta declared it',
  // Readiness: only a failed check says why (null would widen the released type of the field).
  'DependencyCheck.error': 'present when the check failed',
  // One detail field per entry type, present exactly for its type (the description says which).
  'TransportTimelineEntry.status': 'present on STATUS_CHANGED entries only',
  'TransportTimelineEntry.milestone': 'present on MILESTONE entries only',
  'TransportTimelineEntry.document': 'present on DOCUMENT_ADDED entries only',
  'TransportTimelineEntry.complaint': 'present on COMPLAINT_OPENED entries only',
  'TransportTimelineEntry.proofOfDelivery': 'present on PROOF_OF_DELIVERY entries only',
};

const schemas = bundled.components.schemas as Record<string, any>;

/** Names of the component schemas a value reaches through `$ref`, transitively. */
function reached(value: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(value)) for (const v of value) reached(v, into);
  else if (value && typeof value === 'object') {
    const ref = (value as { $ref?: unknown }).$ref;
    if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
      const name = ref.split('/').pop()!;
      if (!into.has(name)) {
        into.add(name);
        reached(schemas[name], into);
      }
    }
    for (const v of Object.values(value)) reached(v, into);
  }
  return into;
}

/** `where.property` for every property of a schema (inline parts included) that is not required. */
function optionalProperties(schema: any, where: string, out: string[] = []): string[] {
  if (Array.isArray(schema)) for (const s of schema) optionalProperties(s, where, out);
  if (!schema || typeof schema !== 'object' || Array.isArray(schema) || schema.$ref) return out;
  if (schema.properties) {
    const required = new Set<string>(schema.required ?? []);
    for (const [name, property] of Object.entries<any>(schema.properties)) {
      if (!required.has(name)) out.push(`${where}.${name}`);
      optionalProperties(property, `${where}.${name}`, out);
    }
  }
  for (const key of ['allOf', 'anyOf', 'oneOf', 'items', 'additionalProperties']) optionalProperties(schema[key], where, out);
  return out;
}

describe('success answers and webhook bodies', () => {
  const names = new Set<string>();
  const inline: string[] = [];
  for (const { op } of operations) {
    for (const [status, response] of Object.entries<any>(op.responses)) {
      if (!status.startsWith('2')) continue;
      reached(response, names);
      for (const media of Object.values<any>(response.content ?? {}))
        optionalProperties(media.schema, `${op.operationId} ${status}`, inline);
    }
  }
  for (const [name, item] of Object.entries<any>(bundled.webhooks ?? {})) {
    reached(item, names);
    for (const media of Object.values<any>(item.post?.requestBody?.content ?? {}))
      optionalProperties(media.schema, `webhook ${name}`, inline);
  }

  it('reach the schemas a client decodes (sanity of the walk)', () => {
    expect(names).toContain('Transport');
    expect(names).toContain('SuccessEnvelope');
    expect(names).toContain('TutorialCompletion');
  });

  it('require every field the server always sends', () => {
    const optional = [...names].sort().flatMap((name) => optionalProperties(schemas[name], name));
    expect([...optional, ...inline].filter((field) => !(field in OPTIONAL))).toEqual([]);
  });

  it('keep the reasoned exceptions real (an exception that became required is dropped from the list)', () => {
    const optional = new Set([...names].flatMap((name) => optionalProperties(schemas[name], name)));
    expect(Object.keys(OPTIONAL).filter((field) => !optional.has(field))).toEqual([]);
  });
});
