import { createHash } from 'node:crypto';
import { listOperations, loadContract, type OpenApiDocument, type OperationObject } from '../../contract.js';

/*
 * Which operations take part in idempotent retries and conditional requests, read from the
 * contract (its introduction, "Idempotent retries" and "Conditional requests", states the rules):
 * an operation declaring the `Idempotency-Key` header stores and replays its answers; one
 * declaring `If-None-Match` sends an ETag; one declaring `If-Match` is checked against the ETag
 * of the resource it changes.
 */

/** A write checked against a resource's ETag. */
export interface Conditional {
  /** The path template of the resource's GET (`/trade/transports/{id}`). */
  resource: string;
  /** The operationId of that GET (its representation is the modules' registered function). */
  get: string;
  /** The write's answer is the resource's representation (its ETag comes from the answer itself). */
  representation: boolean;
  /** A DELETE of the resource itself: no ETag after it. */
  removes: boolean;
}

/** A create whose new resource has a GET that sends an ETag: its 201 carries that ETag. */
export interface Creates {
  /** The path template of the new resource's GET (`/trade/transports/{id}`). */
  resource: string;
  /** The operationId of that GET. */
  get: string;
  /** The 201's `result` is the GET's representation (its ETag comes from the answer itself). */
  representation: boolean;
}

export interface WritePolicy {
  idempotent: boolean;
  /** Fields of `result` a stored answer keeps as null (`x-replay-redacts`: one-time secrets). */
  redacts: string[];
  etag: boolean;
  conditional: Conditional | null;
  creates: Creates | null;
}

type Json = Record<string, any>;

function deref(doc: OpenApiDocument, value: unknown): Json | undefined {
  let current = value as Json | undefined;
  while (current && typeof current.$ref === 'string') {
    current = (current.$ref as string)
      .slice(2)
      .split('/')
      .reduce<Json | undefined>((node, key) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc as Json);
  }
  return current;
}

const headerNames = (doc: OpenApiDocument, operation: OperationObject): Set<string> =>
  new Set(
    ((operation.parameters as unknown[] | undefined) ?? [])
      .map((p) => deref(doc, p))
      .filter((p) => p?.in === 'header')
      .map((p) => String(p!.name).toLowerCase()),
  );

/** The schema of `result` in an operation's success answer, as text (to compare two operations). */
function resultSchema(doc: OpenApiDocument, operation: OperationObject): string | undefined {
  const responses = operation.responses as Json;
  const ok = Object.keys(responses).find((status) => status.startsWith('2'));
  const schema = deref(doc, deref(doc, responses[ok!])?.content?.['application/json']?.schema);
  const parts: Json[] = schema?.allOf ? schema.allOf.map((part: unknown) => deref(doc, part)) : schema ? [schema] : [];
  for (const part of parts) if (part?.properties?.result) return JSON.stringify(part.properties.result);
  return undefined;
}

/** The policy of every operation that takes part (by operationId). */
export function writePolicies(doc: OpenApiDocument = loadContract()): Map<string, WritePolicy> {
  const gets = new Map<string, OperationObject>();
  for (const { method, path, operation } of listOperations(doc)) if (method === 'get') gets.set(path, operation);
  const table = new Map<string, WritePolicy>();
  for (const { method, path, operation } of listOperations(doc)) {
    const headers = headerNames(doc, operation);
    let conditional: Conditional | null = null;
    if (headers.has('if-match')) {
      const explicit = operation['x-etag-resource'] as string | undefined;
      const parent = path.replace(/\/[^/]+$/, '');
      const resource = explicit ?? (gets.has(path) ? path : parent);
      const get = gets.get(resource);
      if (!get) throw new Error(`${operation.operationId} declares If-Match but ${resource} has no GET`);
      const own = resultSchema(doc, operation);
      conditional = {
        resource,
        get: get.operationId,
        representation: own !== undefined && own === resultSchema(doc, get),
        removes: method === 'delete' && resource === path,
      };
    }
    let creates: Creates | null = null;
    const created = gets.get(`${path}/{id}`);
    if (method === 'post' && created && '201' in (operation.responses as Json) && headerNames(doc, created).has('if-none-match')) {
      const own = resultSchema(doc, operation);
      creates = {
        resource: `${path}/{id}`,
        get: created.operationId,
        representation: own !== undefined && own === resultSchema(doc, created),
      };
    }
    const redacts = (operation['x-replay-redacts'] as string[] | undefined) ?? [];
    const policy = { idempotent: headers.has('idempotency-key'), redacts, etag: headers.has('if-none-match'), conditional, creates };
    if (policy.idempotent || policy.etag || policy.conditional || policy.creates) table.set(operation.operationId, policy);
  }
  return table;
}

/**
 * The strong ETag of a JSON answer: a digest of its `result` as serialized (from the `"result":`
 * key to the end; the envelope's `message`, which differs between a read and a write of the
 * same resource, comes before it), so a GET and a write answering the same representation
 * give the same tag. 128 bits, base64url, quoted.
 */
export function etagOf(body: string): string {
  const at = body.indexOf('"result":');
  return `"${createHash('sha256')
    .update(at < 0 ? body : body.slice(at))
    .digest('base64url')
    .slice(0, 22)}"`;
}

/**
 * Whether an `If-Match` / `If-None-Match` value names `etag` (strong comparison: a weak tag never
 * matches; `*` matches any current representation).
 */
export function tagMatches(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  for (const part of header.split(',')) if (part.trim() === etag) return true;
  return false;
}
