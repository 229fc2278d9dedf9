// Redocly plugin: links that resolve. `pnpm lint` runs its rule `links/resolve`, which requires of
// every OpenAPI Link object (a response's `links`):
//   - an `operationId` (not an `operationRef`) naming an operation of this document;
//   - each key of `parameters` naming a parameter of that operation (its own, its path's or its
//     parameter set's; `path.`, `query.` or `header.` may prefix the name), and every required
//     path parameter of that operation given;
//   - each runtime expression resolving in the operation the link starts from:
//     `$response.body#/a/b` and `$request.body#/a/b` a JSON pointer that the response's (or the
//     request's) JSON schema declares (through `$ref`, `allOf`, `oneOf`, `anyOf`, `properties`,
//     and `items` for a numeric segment), `$request.path.x` / `.query.x` / `.header.x` a parameter
//     of that operation, `$response.header.X` a header of that response; `$url`, `$method` and
//     `$statusCode` always resolve. Any other value is a constant and is passed as given.
// Operations are collected over the whole document first, so a link may point anywhere in it.
const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'options', 'head', 'trace'];

const isRef = (node) => node !== null && typeof node === 'object' && typeof node.$ref === 'string';

function resolveRule() {
  return {
    Root: {
      leave(root, ctx) {
        /** Follows `$ref`s from the file `from`; returns the node and the file it lives in. */
        const follow = (node, from) => {
          let current = node;
          let source = from;
          for (let hops = 0; isRef(current) && hops < 20; hops++) {
            const resolved = ctx.resolve(current, source);
            if (!resolved.location) return { node: undefined, from: source };
            current = resolved.node;
            source = resolved.location.source.absoluteRef;
          }
          return { node: current, from: source };
        };
        const rootFrom = ctx.location.source.absoluteRef;

        /** Parameters of an operation: the path's, the operation's and its parameter set's (x-parameters). */
        const parametersOf = (pathItem, pathFrom, op, opFrom) => {
          const list = [];
          for (const p of pathItem.parameters ?? []) list.push(follow(p, pathFrom).node);
          for (const p of op.parameters ?? []) list.push(follow(p, opFrom).node);
          const set = follow(op['x-parameters'], opFrom);
          for (const p of Object.values(set.node ?? {})) list.push(follow(p, set.from).node);
          return list.filter((p) => p && typeof p.name === 'string');
        };

        const operations = new Map();
        const sources = [];
        const paths = follow(root.paths, rootFrom);
        for (const [path, rawItem] of Object.entries(paths.node ?? {})) {
          const item = follow(rawItem, paths.from);
          if (!item.node) continue;
          const itemLocation = isRef(rawItem) ? ctx.resolve(rawItem, paths.from).location : ctx.location.child(['paths', path]);
          for (const method of METHODS) {
            const op = item.node[method];
            if (!op) continue;
            const parameters = parametersOf(item.node, item.from, op, item.from);
            if (op.operationId) operations.set(op.operationId, { parameters });
            sources.push({ op, from: item.from, parameters, location: itemLocation.child([method]) });
          }
        }

        /** True when the JSON pointer `segments` is declared by `schema` (followed from `from`). */
        const declares = (schema, from, segments, depth = 0) => {
          const { node, from: at } = follow(schema, from);
          if (!node || typeof node !== 'object' || depth > 64) return false;
          if (segments.length === 0) return true;
          for (const key of ['allOf', 'oneOf', 'anyOf'])
            if (Array.isArray(node[key]) && node[key].some((s) => declares(s, at, segments, depth + 1))) return true;
          const [head, ...rest] = segments;
          const properties = follow(node.properties, at);
          if (properties.node && Object.hasOwn(properties.node, head))
            return declares(properties.node[head], properties.from, rest, depth + 1);
          if (/^\d+$/.test(head) && node.items) return declares(node.items, at, rest, depth + 1);
          return false;
        };
        const pointer = (fragment) =>
          fragment
            .replace(/^\//, '')
            .split('/')
            .filter((s, _i, all) => !(s === '' && all.length === 1))
            .map((s) => decodeURIComponent(s).replace(/~1/g, '/').replace(/~0/g, '~'));
        const jsonSchema = (holder, from) => {
          const { node, from: at } = follow(holder, from);
          const content = follow(node?.content, at);
          const media = content.node && Object.entries(content.node).find(([type]) => type.includes('json'));
          return media ? { schema: media[1].schema, from: content.from } : null;
        };

        /** Why an expression does not resolve in its operation and response, or null when it does. */
        const unresolved = (expression, source, response, responseFrom) => {
          if (typeof expression !== 'string' || !expression.startsWith('$')) return null;
          if (['$url', '$method', '$statusCode'].includes(expression)) return null;
          let m = /^\$(response|request)\.body(?:#(.*))?$/.exec(expression);
          if (m) {
            const body = m[1] === 'response' ? jsonSchema(response, responseFrom) : jsonSchema(source.op.requestBody, source.from);
            if (!body) return `the ${m[1]} has no JSON body`;
            return declares(body.schema, body.from, pointer(m[2] ?? '')) ? null : `the ${m[1]} body's schema declares no ${m[2]}`;
          }
          m = /^\$request\.(path|query|header)\.(.+)$/.exec(expression);
          if (m) {
            const found = source.parameters.some(
              (p) => p.in === m[1] && (m[1] === 'header' ? p.name.toLowerCase() === m[2].toLowerCase() : p.name === m[2]),
            );
            return found ? null : `the operation has no ${m[1]} parameter ${m[2]}`;
          }
          m = /^\$response\.header\.(.+)$/.exec(expression);
          if (m) {
            const headers = follow(follow(response, responseFrom).node?.headers, responseFrom).node ?? {};
            return Object.keys(headers).some((h) => h.toLowerCase() === m[1].toLowerCase())
              ? null
              : `the response declares no header ${m[1]}`;
          }
          return 'not a runtime expression of OpenAPI 3.1 ($url, $method, $statusCode, $request.*, $response.*)';
        };

        for (const source of sources) {
          const responses = follow(source.op.responses, source.from);
          for (const [status, rawResponse] of Object.entries(responses.node ?? {})) {
            const response = follow(rawResponse, responses.from);
            const links = follow(response.node?.links, response.from);
            for (const [name, rawLink] of Object.entries(links.node ?? {})) {
              const { node: link } = follow(rawLink, links.from);
              const location = source.location.child(['responses', status, 'links', name]);
              const report = (message, key) =>
                ctx.report({ message: `link ${name}: ${message}`, location: key ? location.child(key) : location });
              if (!link || typeof link.operationId !== 'string') {
                report('give the target as an operationId of this document (operationRef is not used here)');
                continue;
              }
              const target = operations.get(link.operationId);
              if (!target) {
                report(`no operation has the operationId "${link.operationId}"`, ['operationId']);
                continue;
              }
              const given = new Set();
              for (const [key, value] of Object.entries(link.parameters ?? {})) {
                const m = /^(?:(path|query|header)\.)?(.+)$/.exec(key);
                const parameter = target.parameters.find((p) => p.name === m[2] && (!m[1] || p.in === m[1]));
                if (!parameter) report(`${link.operationId} has no parameter "${key}"`, ['parameters', key]);
                else given.add(`${parameter.in}:${parameter.name}`);
                const why = unresolved(value, source, rawResponse, responses.from);
                if (why) report(`parameter "${key}": ${value} does not resolve: ${why}`, ['parameters', key]);
              }
              for (const p of target.parameters)
                if (p.in === 'path' && !given.has(`path:${p.name}`))
                  report(`the path parameter "${p.name}" of ${link.operationId} is not given`, ['parameters']);
              const why = unresolved(link.requestBody, source, rawResponse, responses.from);
              if (why) report(`requestBody: ${link.requestBody} does not resolve: ${why}`, ['requestBody']);
            }
          }
        }
      },
    },
  };
}

export default function links() {
  return { id: 'links', rules: { oas3: { resolve: resolveRule } } };
}
