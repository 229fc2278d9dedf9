import { describe, expect, it } from 'vitest';
import { bundled, contractAjv, deref, operations } from './document.js';

const ajv = contractAjv();
const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

interface Example {
  where: string;
  schemaRef: string;
  value: unknown;
}

/** Every named example of every request body and response, with the schema it must satisfy. */
function collect(): Example[] {
  const out: Example[] = [];
  for (const { method, path, op } of operations) {
    const base = pointer('paths', path, method.toLowerCase());
    const media = (content: Record<string, any> | undefined, at: string) => {
      for (const [type, m] of Object.entries(content ?? {})) {
        if (!type.includes('json')) continue;
        for (const [name, ex] of Object.entries<any>(m.examples ?? {})) {
          out.push({
            where: `${op.operationId} ${at} ${name}`,
            schemaRef: `contract#/${base}/${at}/content/${pointer(type)}/schema`,
            value: deref(ex).value,
          });
        }
      }
    };
    if (op.requestBody) media(deref(op.requestBody).content, 'requestBody');
    for (const [status, response] of Object.entries<any>(op.responses)) {
      if (response.$ref) {
        const name = response.$ref.split('/').pop();
        const shared = bundled.components.responses[name];
        for (const [type, m] of Object.entries<any>(shared.content ?? {})) {
          for (const [exName, ex] of Object.entries<any>(m.examples ?? {})) {
            out.push({
              where: `components/responses/${name} ${exName}`,
              schemaRef: `contract#/components/responses/${name}/content/${pointer(type)}/schema`,
              value: ex.value,
            });
          }
        }
      } else {
        media(response.content, pointer('responses', status));
      }
    }
  }
  // The bodies the server sends to webhook endpoints (the contract's `webhooks` section).
  for (const [name, item] of Object.entries<any>(bundled.webhooks ?? {})) {
    for (const [type, m] of Object.entries<any>(item.post?.requestBody?.content ?? {})) {
      for (const [exName, ex] of Object.entries<any>(m.examples ?? {})) {
        out.push({
          where: `webhook ${name} ${exName}`,
          schemaRef: `contract#/${pointer('webhooks', name, 'post', 'requestBody', 'content', type, 'schema')}`,
          value: deref(ex).value,
        });
      }
    }
  }
  return [...new Map(out.map((e) => [e.where, e])).values()];
}

const examples = collect();

describe('examples of the contract', () => {
  it('has examples to check', () => {
    expect(examples.length).toBeGreaterThan(operations.length);
  });

  it.each(examples.map((e) => [e.where, e] as const))('%s validates against its schema', (_where, example) => {
    const validate = ajv.getSchema(example.schemaRef) ?? ajv.compile({ $ref: example.schemaRef });
    const valid = validate(example.value);
    expect(valid, JSON.stringify(validate.errors, null, 1)).toBe(true);
  });

  it('gives every JSON success response at least one named example', () => {
    const missing: string[] = [];
    for (const { op } of operations) {
      for (const [status, response] of Object.entries<any>(op.responses)) {
        if (!status.startsWith('2')) continue;
        const json = deref(response).content?.['application/json'];
        if (json && Object.keys(json.examples ?? {}).length === 0) missing.push(`${op.operationId} ${status}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
