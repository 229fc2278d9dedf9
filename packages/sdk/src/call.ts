import type { operations } from './schema.js';

/** Every operationId of the contract. */
export type OperationId = keyof operations;
type Op<K extends OperationId> = operations[K];

// biome-ignore lint/complexity/noBannedTypes: {} is the empty set of parameters, intersected with the others
type Defined<T> = [NonNullable<T>] extends [never] ? {} : NonNullable<T>;
/** The path and query parameters of an operation, as one object: `{ id: 42 }`, `{ page: 2, status: 'PENDING' }`. */
export type ParamsOf<K extends OperationId> = Defined<Op<K>['parameters']['path']> & Defined<Op<K>['parameters']['query']>;
type Content<B> = B extends { content: { 'application/json': infer J } }
  ? J
  : B extends { content: { 'multipart/form-data': infer M } }
    ? M
    : never;
/** The request body of an operation (JSON, or the multipart fields with files as Blobs). */
export type BodyOf<K extends OperationId> = Content<NonNullable<Op<K>['requestBody']>>;
type Success<K extends OperationId> = Op<K>['responses'] extends infer R ? R[Extract<keyof R, 200 | 201 | 202>] : never;
/** What the concise form resolves to: the envelope's `result`, or a Blob for file downloads. */
export type ResultOf<K extends OperationId> = Success<K> extends { content: { 'application/json': { result: infer X } } } ? X : Blob;

/** Per-call settings of the concise form. */
export interface CallOptions {
  /** Timeout per attempt in ms (overrides the client's). */
  timeoutMs?: number;
  /** Further attempts (overrides the client's). */
  retries?: number;
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /**
   * The `Idempotency-Key` of a POST that takes one; by default a new random UUID per call (kept
   * across the call's retries). Give your own to make a retry of a whole call, later, safe too.
   */
  idempotencyKey?: string;
  /** `If-Match`: apply this PATCH, PUT or DELETE only if the resource still has this ETag (else 412 `PRECONDITION_FAILED`). */
  ifMatch?: string;
}

type ParamArgs<K extends OperationId> = keyof ParamsOf<K> extends never
  ? []
  : // biome-ignore lint/complexity/noBannedTypes: true when every parameter is optional
    {} extends ParamsOf<K>
    ? [BodyOf<K>] extends [never]
      ? [params?: ParamsOf<K>]
      : [params: ParamsOf<K> | undefined]
    : [params: ParamsOf<K>];
type BodyArgs<K extends OperationId> = [BodyOf<K>] extends [never]
  ? []
  : undefined extends Op<K>['requestBody']
    ? [body?: BodyOf<K>]
    : [body: BodyOf<K>];
/** The arguments of `api.op.<operationId>(...)`: parameters (if any), body (if any), then options. */
export type CallArgs<K extends OperationId> = [...ParamArgs<K>, ...BodyArgs<K>, options?: CallOptions];

/** `api.op.getTransportById({ id: 42 })`: every operation by its operationId, resolving to its result. */
export type OperationMethods = { [K in OperationId]: (...args: CallArgs<K>) => Promise<ResultOf<K>> };

/** Operations answering a page (`result.data` and `result.meta`). */
export type PagedOperationId = {
  [K in OperationId]: ResultOf<K> extends { data: unknown[]; meta: { total_pages: number } } ? K : never;
}[OperationId];
export type ItemOf<K extends OperationId> = ResultOf<K> extends { data: (infer T)[] } ? T : never;

/** Splits the concise form's arguments by the operation's flags (see `operationTable`). */
export function splitArgs(path: string, flags: number, args: unknown[]) {
  let i = 0;
  const params = (flags & 1 ? args[i++] : undefined) as Record<string, unknown> | undefined;
  const body = flags & 2 ? args[i++] : undefined;
  const options = (args[i] ?? {}) as CallOptions;
  const pathNames = new Set([...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!));
  const pathParams: Record<string, unknown> = {};
  const query: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(params ?? {})) (pathNames.has(name) ? pathParams : query)[name] = value;
  return { params: { path: pathParams, query }, body, options };
}
