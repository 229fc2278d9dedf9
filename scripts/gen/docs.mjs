// Bundle-time additions to the contract: the error-code table generated from the error schemas
// (into info.description, at the `<!-- error-codes -->` marker), and a curl and an SDK sample on
// every operation (`x-codeSamples`, shown by the docs page), built from the operation's examples.
const METHODS = ['get', 'put', 'post', 'patch', 'delete'];
// The demo account to log in with for each role of a security requirement, most specific first.
const DEMO_ACCOUNT = { agent: 'agent', team_manager: 'manager', supervisor: 'supervisor', admin: 'admin', super_admin: 'admin' };
/** The demo accounts' password (packages/server/src/db/seed.ts), which production documents never show. */
export const DEMO_PASSWORD = 'demo1234';

const resolve = (document, node) => {
  let value = node;
  while (value?.$ref?.startsWith('#/'))
    value = value.$ref
      .slice(2)
      .split('/')
      .reduce((o, k) => o?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], document);
  return value;
};

export function errorTable(document) {
  const detail = resolve(document, document.components.schemas.ErrorDetail);
  const rows = detail.oneOf.map((ref) => {
    const schema = resolve(document, ref);
    const code = schema.properties.code.const;
    const context = Object.keys(schema.properties)
      .filter((k) => k !== 'code')
      .map((k) => `\`${k}\``)
      .join(', ');
    const condition = (schema.description ?? '').replace(/\s*HTTP \d{3}\.\s*$/, '');
    return `| \`${code}\` | ${schema['x-http-status']} | ${condition}${context ? ` Context: ${context}.` : ''} |`;
  });
  return ['| Code | HTTP | Condition (and the context fields of `errors`) |', '|---|---|---|', ...rows].join('\n');
}

function exampleOf(document, holder) {
  const media = resolve(document, holder);
  if (!media) return undefined;
  if (media.example !== undefined) return media.example;
  const first = media.examples && Object.values(media.examples)[0];
  if (first) return resolve(document, first).value;
  const schema = resolve(document, media.schema);
  return schema?.example ?? schema?.examples?.[0] ?? schema?.default ?? schema?.enum?.[0];
}

function parameterValue(document, parameter) {
  const value = exampleOf(document, parameter);
  if (value !== undefined) return value;
  const schema = resolve(document, parameter.schema) ?? {};
  if (schema.type === 'integer' || schema.type === 'number') return parameter.in === 'path' ? 42 : (schema.minimum ?? 1);
  if (schema.type === 'boolean') return true;
  return parameter.name === 'code' ? 'CERT-2026-7F3KQ9' : 'value';
}

function account(operation, document) {
  const requirement = operation.security ?? document.security;
  if (!requirement?.length) return null;
  const roles = Object.values(requirement[0])[0] ?? [];
  const role = Object.keys(DEMO_ACCOUNT).find((r) => roles.includes(r)) ?? 'agent';
  return DEMO_ACCOUNT[role];
}

const shellQuote = (s) => `'${String(s).replace(/'/g, `'\\''`)}'`;
/** A JavaScript literal, on one line when short. */
function js(value, indent = '') {
  const block = (open, items, close) => {
    const line = `${open}${open === '{' ? ' ' : ''}${items.join(', ')}${open === '{' ? ' ' : ''}${close}`;
    return line.length < 72 ? line : `${open}\n${items.map((i) => `${indent}  ${i},`).join('\n')}\n${indent}${close}`;
  };
  if (Array.isArray(value))
    return value.length
      ? block(
          '[',
          value.map((v) => js(v, `${indent}  `)),
          ']',
        )
      : '[]';
  if (value && typeof value === 'object') {
    const items = Object.entries(value).map(([k, v]) => `${/^[A-Za-z_$][\w$]*$/.test(k) ? k : `'${k}'`}: ${js(v, `${indent}  `)}`);
    return items.length ? block('{', items, '}') : '{}';
  }
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
  return String(value);
}

function samples(document, path, method, operation, pathItem) {
  const server = (operation.servers ?? pathItem.servers ?? document.servers)[0];
  const base = server.url.replace(/\{(\w+)\}/g, (_, v) => server.variables?.[v]?.default ?? '');
  const parameters = [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])].map((p) => resolve(document, p));
  const params = {};
  const query = new URLSearchParams();
  let url = path;
  for (const p of parameters) {
    if (p.in === 'path') {
      params[p.name] = parameterValue(document, p);
      url = url.replace(`{${p.name}}`, encodeURIComponent(params[p.name]));
    } else if (p.in === 'query' && p.required) {
      params[p.name] = parameterValue(document, p);
      query.set(p.name, params[p.name]);
    }
  }
  const content = resolve(document, operation.requestBody)?.content ?? {};
  const multipart = content['multipart/form-data'];
  const body = exampleOf(document, content['application/json'] ?? multipart);
  const user = account(operation, document);
  const fullUrl = `${base}${url}${query.size ? `?${query}` : ''}`;

  const curl = [`curl -X ${method.toUpperCase()} ${shellQuote(fullUrl)}`];
  if (user) curl.push('  -H "Authorization: Bearer $ACCESS_TOKEN"');
  if (multipart && body) {
    const fileFields = Object.entries(resolve(document, multipart.schema)?.properties ?? {})
      .filter(([, s]) => s.format === 'binary' || s.items?.format === 'binary')
      .map(([name]) => name);
    for (const [name, value] of Object.entries(body)) {
      for (const item of Array.isArray(value) ? value : [value]) {
        curl.push(`  -F ${shellQuote(fileFields.includes(name) ? `${name}=@${item}` : `${name}=${item}`)}`);
      }
    }
  } else if (body !== undefined) {
    curl.push(`  -H 'Content-Type: application/json'`, `  -d ${shellQuote(JSON.stringify(body))}`);
  }

  const args = [];
  if (Object.keys(params).length) args.push(js(params));
  if (body !== undefined) {
    if (multipart) {
      const fileFields = new Set(
        Object.entries(resolve(document, multipart.schema)?.properties ?? {})
          .filter(([, s]) => s.format === 'binary' || s.items?.format === 'binary')
          .map(([name]) => name),
      );
      const fields = Object.entries(body).map(([name, value]) =>
        fileFields.has(name) ? `  ${name}: [file], // File or Blob objects, e.g. from <input type="file">` : `  ${name}: ${js(value)},`,
      );
      args.push(`{\n${fields.join('\n')}\n}`);
    } else args.push(js(body));
  }
  const success = operation.responses['200'] ?? operation.responses['201'];
  const isFile = !Object.keys(resolve(document, success)?.content ?? {}).includes('application/json');
  const sdk = [
    `import { createTransportOpsClient } from '@transport-ops/sdk';`,
    '',
    `const api = createTransportOpsClient({ baseUrl: '${base}' });`,
    ...(user ? [`await api.login('${user}', '${DEMO_PASSWORD}');`] : []),
    `const ${isFile ? 'file' : 'result'} = await api.op.${operation.operationId}(${args.join(', ')});${isFile ? ' // a Blob' : ''}`,
  ];
  return [
    { lang: 'curl', label: 'curl', source: curl.join(' \\\n') },
    { lang: 'JavaScript', label: 'SDK', source: sdk.join('\n') },
  ];
}

/** Adds the generated error table (every bundle) and, with `withSamples`, the code samples (docs bundle). */
export function enrich(document, { withSamples }) {
  const marker = '<!-- error-codes -->';
  if (document.info.description.includes(marker))
    document.info.description = document.info.description.replace(marker, errorTable(document));
  if (!withSamples) return document;
  const copy = structuredClone(document);
  for (const [path, item] of Object.entries(copy.paths)) {
    for (const method of METHODS) if (item[method]) item[method]['x-codeSamples'] = samples(copy, path, method, item[method], item);
  }
  return copy;
}

const DEMO_SECTION = /<!-- demo-accounts -->[\s\S]*?<!-- \/demo-accounts -->/;
const PRODUCTION_NOTE = [
  '## Accounts',
  'Accounts are created by an administrator (`POST /admin/users`); the first one with',
  '`pnpm admin:create`. This server runs in production: it has no demo accounts, and it refuses',
  'every login with the password the development demo accounts use.',
].join('\n');

/**
 * The document a production server serves (contract and docs page): the demo accounts section
 * becomes a note, and the SDK samples log in with credentials of the reader's own. Fails when the
 * demo password is still anywhere in it.
 */
export function withoutDemoAccounts(document) {
  const copy = structuredClone(document);
  if (!DEMO_SECTION.test(copy.info.description)) throw new Error('openapi.yaml: the <!-- demo-accounts --> section is missing');
  copy.info.description = copy.info.description.replace(DEMO_SECTION, PRODUCTION_NOTE);
  const login = new RegExp(`await api\\.login\\('[^']*', '${DEMO_PASSWORD}'\\);`, 'g');
  for (const item of Object.values(copy.paths)) {
    for (const method of METHODS) {
      for (const sample of item[method]?.['x-codeSamples'] ?? []) {
        sample.source = sample.source.replace(login, 'await api.login(process.env.API_USERNAME, process.env.API_PASSWORD);');
      }
    }
  }
  const left = JSON.stringify(copy).split(DEMO_PASSWORD).length - 1;
  if (left > 0) throw new Error(`the production document still shows the demo password ${left} times`);
  return copy;
}
