import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const addFormats = (addFormatsModule as unknown as { default: typeof addFormatsModule }).default ?? addFormatsModule;

/** The bundled document (`pnpm gen` writes it before the tests run). */
export const bundled = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../packages/contract/dist/openapi.json', import.meta.url)), 'utf8'),
) as any;

export const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

export interface Op {
  method: string;
  path: string;
  op: any;
}
export const operations: Op[] = Object.entries(bundled.paths as Record<string, any>).flatMap(([path, item]) =>
  METHODS.filter((m) => item[m]).map((method) => ({ method: method.toUpperCase(), path, op: item[method] })),
);

export function contractAjv() {
  const ajv = new Ajv2020({ strict: false, allErrors: true, discriminator: false });
  addFormats(ajv);
  ajv.addFormat('binary', true);
  ajv.addSchema(bundled, 'contract');
  return ajv;
}

/** Follows a local `$ref` (`#/components/...`) of the bundled document. */
export function deref<T = any>(value: any): T {
  let current = value;
  while (current && typeof current.$ref === 'string' && current.$ref.startsWith('#/')) {
    current = current.$ref
      .slice(2)
      .split('/')
      .reduce((node: any, key: string) => node[key.replace(/~1/g, '/').replace(/~0/g, '~')], bundled);
  }
  return current as T;
}
