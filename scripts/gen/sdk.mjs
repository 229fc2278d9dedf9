// The SDK's generated files: its own copy of the contract's types (file fields typed as Blob, so
// that uploads need no cast) and the operation table behind the concise `api.op.<operationId>()` form.
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';

const METHODS = ['get', 'put', 'post', 'patch', 'delete'];
const BLOB = ts.factory.createTypeReferenceNode('Blob');

export async function sdkTypes(document, header) {
  const ast = await openapiTS(document, {
    defaultNonNullable: false,
    alphabetize: false,
    exportType: false,
    transform: (schema) => (schema.format === 'binary' ? BLOB : undefined),
  });
  return header + astToString(ast);
}

/**
 * Every operation as `[method, path, flags]`: 1 has parameters, 2 has a body, 4 multipart body,
 * 8 file response, 16 takes an Idempotency-Key, 32 sends an ETag (takes If-None-Match).
 */
export function operationTable(document, header) {
  const rows = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])];
      const content = op.requestBody?.content ?? {};
      const success = op.responses['200'] ?? op.responses['201'] ?? {};
      const json = Object.keys(success.content ?? {}).includes('application/json');
      const refs = params.map((p) => p.$ref ?? '');
      // Headers are not among the concise form's parameters (options carry them).
      const inOf = (p) => (p.$ref ? document.components.parameters[p.$ref.split('/').pop()].in : p.in);
      const pathOrQuery = params.filter((p) => inOf(p) !== 'header');
      // The bundle gives each keyed operation its own copy of the header (with an example of its own,
      // openapi/plugins/examples.mjs): recognized by name.
      const nameOf = (p) => (p.$ref ? document.components.parameters[p.$ref.split('/').pop()].name : p.name);
      const keyed = params.some((p) => inOf(p) === 'header' && nameOf(p) === 'Idempotency-Key') ? 16 : 0;
      const etag = refs.includes('#/components/parameters/IfNoneMatch') ? 32 : 0;
      const flags =
        (pathOrQuery.length ? 1 : 0) | (op.requestBody ? 2 : 0) | (content['multipart/form-data'] ? 4 : 0) | (json ? 0 : 8) | keyed | etag;
      rows.push(`  ${op.operationId}: ['${method.toUpperCase()}', '${path}', ${flags}],`);
    }
  }
  return `${header}/** Method, path and flags (1 parameters, 2 body, 4 multipart body, 8 file response, 16 Idempotency-Key, 32 ETag) of every operation. */
export const operationTable: Record<string, readonly [string, string, number]> = {
${rows.join('\n')}
};
`;
}
