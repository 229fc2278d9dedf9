// Response links (openapi/plugins/links.mjs): creates link to the get, update and delete of what
// they made, lists to the detail of their first item, and lint refuses a link that does not resolve.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
// @ts-expect-error: plain JavaScript module without declarations
import { runRedocly } from '../../scripts/lib/contract.mjs';
import { bundled, deref, operations } from './document.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'links-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const byId = new Map(operations.map((o) => [o.op.operationId as string, o]));
const linksOf = (op: any, status: string) => Object.values<any>(deref(op.responses[status])?.links ?? {});

/** A small document whose one create links to `link`, linted with the project's configuration. */
function lint(link: object): string {
  const ok = {
    description: 'ok',
    content: { 'application/json': { schema: { type: 'object', properties: { id: { type: 'integer' } } } } },
  };
  const doc = {
    openapi: '3.1.0',
    info: { title: 't', version: '1.0.0', description: 'd', license: { name: 'MIT', identifier: 'MIT' } },
    servers: [{ url: 'https://api.example.org' }],
    tags: [{ name: 'T', description: 'd' }],
    security: [],
    paths: {
      '/things': {
        post: {
          operationId: 'createThing',
          tags: ['T'],
          summary: 'Create',
          description: 'd',
          responses: { '201': { ...ok, links: { Read: link } }, '400': { description: 'bad' } },
        },
      },
      '/things/{id}': {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
        get: {
          operationId: 'getThing',
          tags: ['T'],
          summary: 'Get',
          description: 'd',
          responses: { '200': ok, '404': { description: 'no' } },
        },
      },
    },
  };
  const file = join(work, `${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, stringify(doc));
  try {
    runRedocly(['lint', file, '--config', join(root, 'redocly.yaml'), '--format', 'stylish']);
    return '';
  } catch (error) {
    return String((error as { stdout?: string; message: string }).stdout ?? '') + String((error as Error).message);
  }
}

describe('links of the contract', () => {
  it('every create whose path has a detail links its 201 to that detail’s get, update and delete', () => {
    const missing: string[] = [];
    for (const { path, op, method } of operations) {
      if (method !== 'POST' || !op.responses['201']) continue;
      const detail = bundled.paths[`${path}/{id}`];
      if (!detail) continue;
      const expected = ['get', 'patch', 'put', 'delete'].filter((m) => detail[m]).map((m) => detail[m].operationId);
      const linked = linksOf(op, '201').map((l) => l.operationId);
      for (const id of expected) if (!linked.includes(id)) missing.push(`${op.operationId} -> ${id}`);
    }
    expect(missing).toEqual([]);
  });

  it('every link names an operation of the document and gives each of its path parameters', () => {
    for (const { op } of operations)
      for (const status of Object.keys(op.responses))
        for (const link of linksOf(op, status)) {
          const target = byId.get(link.operationId);
          expect(target, `${op.operationId} ${status} -> ${link.operationId}`).toBeDefined();
          for (const name of [...target!.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)) expect(link.parameters).toHaveProperty(name);
        }
  });

  it('lint passes a link that resolves and fails one to an unknown operation or with an expression that does not resolve', () => {
    expect(lint({ operationId: 'getThing', parameters: { id: '$response.body#/id' } })).toBe('');
    expect(lint({ operationId: 'getThingy', parameters: { id: '$response.body#/id' } })).toContain(
      'no operation has the operationId "getThingy"',
    );
    expect(lint({ operationId: 'getThing', parameters: { id: '$response.body#/identifier' } })).toContain(
      "the response body's schema declares no /identifier",
    );
    expect(lint({ operationId: 'getThing', parameters: {} })).toContain('the path parameter "id" of getThing is not given');
  }, 600_000);
});
