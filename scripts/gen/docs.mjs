// Bundle-time additions to the contract: the error-code table generated from the error schemas
// (into info.description, at the `<!-- error-codes -->` marker), and a curl and an SDK sample on
// every operation (`x-codeSamples`, shown by the docs page), built from the operation's examples.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const METHODS = ['get', 'put', 'post', 'patch', 'delete'];
// The demo account to log in with for each role of a security requirement, most specific first.
const DEMO_ACCOUNT = { agent: 'agent', team_manager: 'manager', supervisor: 'supervisor', admin: 'admin', super_admin: 'root' };
/** The demo accounts' password (packages/server/src/db/seed.ts), which production documents never show. */
export const DEMO_PASSWORD = 'demo1234';
// The samples are written against the sandbox (`pnpm sandbox`, default port) and its demo data.
export const SAMPLE_BASE = 'http://127.0.0.1:4000';
// What a sample needs beyond the operation's examples (its account, path values, first lines): openapi/samples.yaml.
const SAMPLE_FILE = join(dirname(fileURLToPath(import.meta.url)), '../../openapi/samples.yaml');

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
  if (schema.type === 'integer' || schema.type === 'number') return schema.minimum ?? 1;
  if (schema.type === 'boolean') return true;
  return 'value';
}

/** The demo account a sample logs in with: the sample's own choice, else the first role the operation allows. */
function account(operation, document, chosen) {
  const requirement = operation.security ?? document.security;
  if (!requirement?.length) return null;
  const roles = Object.values(requirement[0])[0] ?? [];
  if (chosen) {
    const role = Object.keys(DEMO_ACCOUNT).find((r) => DEMO_ACCOUNT[r] === chosen);
    if (!roles.includes(role)) throw new Error(`${operation.operationId}: the sample logs in as ${chosen}, a role the operation refuses`);
    return chosen;
  }
  const role = Object.keys(DEMO_ACCOUNT).find((r) => roles.includes(r));
  if (!role) throw new Error(`${operation.operationId}: no demo account has a role the operation allows`);
  return DEMO_ACCOUNT[role];
}

// A placeholder `$NAME` in a sample's values is a shell variable (curl) or a constant (SDK) that the
// sample's own first lines set (for values only known at run time: a refresh token, a new record's id).
const PLACEHOLDER = /\$([A-Z][A-Z0-9_]*)/g;
const shellQuote = (s) => {
  const text = String(s);
  if (!/\$[A-Z]/.test(text)) return `'${text.replace(/'/g, `'\\''`)}'`;
  return `"${text.replace(/[\\"`]/g, '\\$&').replace(/\$(?![A-Z])/g, '\\$')}"`;
};
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
  if (typeof value === 'string') {
    if (/^\$[A-Z][A-Z0-9_]*$/.test(value)) return value.slice(1);
    if (/\$[A-Z]/.test(value)) return `\`${value.replace(/[\\`]/g, '\\$&').replace(PLACEHOLDER, (_, name) => '$' + `{${name}}`)}\``;
    return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
  }
  return String(value);
}

// Files the samples upload, created by the sample itself: a minimal PDF and a 1x1 PNG.
const PDF =
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n';
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGOQi1oAAAGyARnBUHQ0AAAAAElFTkSuQmCC';
function fileMaker(name) {
  if (/\.pdf$/i.test(name))
    return {
      curl: `printf '${PDF.replace(/%/g, '%%').replace(/\n/g, '\\n')}' > ${shellQuote(name)}`,
      sdk: `new File([${js(PDF)}], ${js(name)}, { type: 'application/pdf' })`,
    };
  if (/\.png$/i.test(name))
    return {
      curl: `echo '${PNG}' | base64 -d > ${shellQuote(name)}`,
      sdk: `new File([Uint8Array.from(atob('${PNG}'), (c) => c.charCodeAt(0))], ${js(name)}, { type: 'image/png' })`,
    };
  throw new Error(`sample file ${name}: only .pdf and .png files are made by the samples`);
}
const identifier = (name) => name.replace(/\.[^.]+$/, '').replace(/[^A-Za-z0-9]+(.)?/g, (_, c) => (c ?? '').toUpperCase());

/** `{{token:manager}}` in a sample's own lines: the access token of another demo account. */
const expandCurl = (text, base) =>
  text.replace(
    /\{\{token:(\w+)\}\}/g,
    (_, user) =>
      `$(curl -s -X POST '${base}/auth/login' -H 'Content-Type: application/json' -d '{"username":"${user}","password":"${DEMO_PASSWORD}"}' | sed -E 's/.*"access_token":"([^"]+)".*/\\1/')`,
  );

const DOWNLOAD_NAMES = { 'application/pdf': 'document.pdf', 'text/csv': 'export.csv', 'image/png': 'image.png', 'image/jpeg': 'image.jpg' };

function samples(document, path, method, operation, pathItem, own = {}) {
  const base = SAMPLE_BASE;
  const parameters = [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])].map((p) => resolve(document, p));
  const params = {};
  const query = [];
  let url = path;
  for (const p of parameters) {
    const chosen = own.params?.[p.name];
    if (p.in === 'path') {
      params[p.name] = chosen ?? parameterValue(document, p);
      const text = String(params[p.name]);
      url = url.replace(`{${p.name}}`, /^\$[A-Z]/.test(text) ? text : encodeURIComponent(text));
    } else if (p.in === 'query' && (p.required || chosen !== undefined)) {
      params[p.name] = chosen ?? parameterValue(document, p);
      query.push(`${encodeURIComponent(p.name)}=${encodeURIComponent(params[p.name]).replace(/%20/g, '+')}`);
    }
  }
  for (const name of Object.keys(own.params ?? {}))
    if (!(name in params)) throw new Error(`${operation.operationId}: the sample sets ${name}, which is not one of its parameters`);
  const content = resolve(document, operation.requestBody)?.content ?? {};
  const multipart = content['multipart/form-data'];
  const example = exampleOf(document, content['application/json'] ?? multipart);
  // The sample's own body fields replace the example's (a value known only at run time).
  const body = own.body && example && typeof example === 'object' ? Object.assign({}, example, own.body) : (own.body ?? example);
  const user = account(operation, document, own.as);
  const fullUrl = `${base}${url}${query.length ? `?${query.join('&')}` : ''}`;
  const success = operation.responses['200'] ?? operation.responses['201'] ?? operation.responses['204'];
  const successTypes = Object.keys(resolve(document, success)?.content ?? {});
  const isFile = successTypes.length > 0 && !successTypes.includes('application/json');
  const fileFields = new Set(
    Object.entries(resolve(document, multipart?.schema)?.properties ?? {})
      .filter(([, s]) => s.format === 'binary' || s.items?.format === 'binary' || s.contentMediaType || s.items?.contentMediaType)
      .map(([name]) => name),
  );
  const uploads =
    multipart && body
      ? Object.entries(body)
          .filter(([name]) => fileFields.has(name))
          .flatMap(([, v]) => [v].flat())
      : [];

  const curl = [];
  if (user) curl.push(`# As ${user} (log in as ${user} / ${DEMO_PASSWORD}: see "Running the samples" for ACCESS_TOKEN)`);
  else curl.push('# Public: no token needed');
  if (own.curl) curl.push(expandCurl(own.curl.trimEnd(), base));
  for (const name of uploads) curl.push(fileMaker(name).curl);
  const call = [`curl -X ${method.toUpperCase()} ${shellQuote(fullUrl)}`];
  if (user) call.push('  -H "Authorization: Bearer $ACCESS_TOKEN"');
  if (multipart && body) {
    for (const [name, value] of Object.entries(body)) {
      for (const item of Array.isArray(value) ? value : [value]) {
        call.push(`  -F ${shellQuote(fileFields.has(name) ? `${name}=@${item}` : `${name}=${item}`)}`);
      }
    }
  } else if (body !== undefined) {
    // A placeholder named *_ID is a number: unquoted in the JSON text.
    const json = JSON.stringify(body).replace(/"(\$[A-Z][A-Z0-9_]*_ID)"/g, '$1');
    call.push(`  -H 'Content-Type: application/json'`, `  -d ${shellQuote(json)}`);
  }
  // A Server-Sent Events stream stays open: curl prints the events as they come (-N: unbuffered)
  // and the sample stops after a few seconds.
  const isStream = successTypes.includes('text/event-stream');
  if (isStream) {
    call[0] = `curl -N --max-time 5 ${shellQuote(fullUrl)}`;
    call[call.length - 1] += ' || true  # the stream stays open: --max-time ends it (or Ctrl-C)';
  } else if (isFile) call.push(`  -o ${own.output ?? DOWNLOAD_NAMES[successTypes[0]] ?? 'download.bin'}`);
  curl.push(call.join(' \\\n'));
  if (isStream) {
    const sdk = [
      `import { createTransportOpsClient } from '@transport-ops/sdk';`,
      `import { subscribeTransportLive } from '@transport-ops/sdk/live';`,
      '',
      `const api = createTransportOpsClient({ baseUrl: '${base}' });`,
      ...(user ? [`await api.login('${user}', '${DEMO_PASSWORD}');`] : []),
      ...(own.sdk ? [own.sdk.trimEnd()] : []),
      `// Reconnects by itself with Last-Event-ID; narrow on \`event\` to get a typed \`data\`.`,
      `const live = subscribeTransportLive({ baseUrl: '${base}', tokens: api.tokens }, ${js(params.id)}, {`,
      `  onEvent: (e) => console.log(e.id, e.event, e.event === 'position' ? e.data.position : e.data),`,
      '});',
      'setTimeout(() => live.close(), 3000); // when the screen closes',
      `const result = await live.done; // resolves once closed, rejects with the ApiError that stopped it`,
    ];
    return [
      { lang: 'curl', label: 'curl', source: curl.join('\n') },
      { lang: 'JavaScript', label: 'SDK', source: sdk.join('\n') },
    ];
  }

  const args = [];
  if (Object.keys(params).length) args.push(js(params));
  if (body !== undefined) {
    if (multipart) {
      const fields = Object.entries(body).map(([name, value]) =>
        fileFields.has(name)
          ? `  ${name}: ${Array.isArray(value) ? `[${value.map(identifier).join(', ')}]` : identifier(value)},`
          : `  ${name}: ${js(value)},`,
      );
      args.push(`{\n${fields.join('\n')}\n}`);
    } else args.push(js(body));
  }
  const sdk = [
    `import { createTransportOpsClient } from '@transport-ops/sdk';`,
    '',
    `const api = createTransportOpsClient({ baseUrl: '${base}' });`,
    ...(user ? [`await api.login('${user}', '${DEMO_PASSWORD}');`] : []),
    ...(own.sdk ? [own.sdk.trimEnd()] : []),
    ...uploads.map((name) => `const ${identifier(name)} = ${fileMaker(name).sdk}; // or a File from <input type="file">`),
    `const ${isFile ? 'file' : 'result'} = await api.op.${operation.operationId}(${args.join(', ')});${isFile ? ' // a Blob' : ''}`,
  ];
  return [
    { lang: 'curl', label: 'curl', source: curl.join('\n') },
    { lang: 'JavaScript', label: 'SDK', source: sdk.join('\n') },
  ];
}

const WORKFLOWS = join(dirname(fileURLToPath(import.meta.url)), '../../openapi/workflows');

/** The introduction's list of the executable journeys (the Arazzo workflows under openapi/workflows/). */
export function journeyTable() {
  const files = readdirSync(WORKFLOWS)
    .filter((f) => f.endsWith('.arazzo.yaml'))
    .sort();
  const rows = files.flatMap((file) =>
    parse(readFileSync(join(WORKFLOWS, file), 'utf8')).workflows.map((w) => {
      const operations = [...new Set(w.steps.map((step) => step.operationId))].map((id) => `[${id}](#operation/${id})`);
      return `| **${w.summary}** (\`${w.workflowId}\`, \`openapi/workflows/${file}\`) | ${operations.join(', ')} |`;
    }),
  );
  return [
    '## Journeys',
    'The main partner and QA journeys are [Arazzo 1.0](https://spec.openapis.org/arazzo/v1.0.1.html) workflows under',
    '`openapi/workflows/`, run in CI against the sandbox: `pnpm workflows` starts a sandbox and runs them all',
    '(`--base-url http://127.0.0.1:4000` for a running one). Each starts from the demo data: reset the',
    'sandbox first to run one by hand with `npx redocly respect openapi/workflows/<file> -S transportOps=http://127.0.0.1:4000`.',
    'Every step checks its status and the values that matter, and respect checks every answer against this contract.',
    '',
    '| Journey | Operations, in order |',
    '|---|---|',
    ...rows,
  ].join('\n');
}

/** Adds the generated error table (every bundle) and, with `withSamples`, the code samples (docs bundle). */
export function enrich(document, { withSamples }) {
  const marker = '<!-- error-codes -->';
  if (document.info.description.includes(marker))
    document.info.description = document.info.description.replace(marker, errorTable(document));
  const journeys = '<!-- journeys -->';
  if (document.info.description.includes(journeys)) document.info.description = document.info.description.replace(journeys, journeyTable());
  if (!withSamples) return document;
  const copy = structuredClone(document);
  const own = parse(readFileSync(SAMPLE_FILE, 'utf8')) ?? {};
  const seen = new Set();
  for (const [path, item] of Object.entries(copy.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      seen.add(operation.operationId);
      operation['x-codeSamples'] = samples(copy, path, method, operation, item, own[operation.operationId]);
    }
  }
  const unknown = Object.keys(own).filter((id) => !seen.has(id));
  if (unknown.length) throw new Error(`openapi/samples.yaml names operations the contract does not have: ${unknown.join(', ')}`);
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
  const curlLogin = new RegExp(`\\(log in as [\\w-]+ / ${DEMO_PASSWORD}`, 'g');
  for (const item of Object.values(copy.paths)) {
    for (const method of METHODS) {
      for (const sample of item[method]?.['x-codeSamples'] ?? []) {
        sample.source = sample.source
          .replace(login, 'await api.login(process.env.API_USERNAME, process.env.API_PASSWORD);')
          .replace(curlLogin, '(log in with an account of that role')
          .replaceAll(DEMO_PASSWORD, 'your-password');
      }
    }
  }
  // Request examples (the login's) show a password of the reader's own instead.
  const walk = (node) => {
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (value === DEMO_PASSWORD) node[key] = 'your-password';
      else walk(value);
    }
  };
  walk(copy.paths);
  const left = JSON.stringify(copy).split(DEMO_PASSWORD).length - 1;
  if (left > 0) throw new Error(`the production document still shows the demo password ${left} times`);
  return copy;
}
