import type { operations } from '@transport-ops/contract';
import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Handler types derived from the generated `operations`: a handler map that misses an
 * operationId, or returns a result of the wrong shape, fails `tsc`.
 */
export type OperationId = keyof operations;
type Op<K extends OperationId> = operations[K];
type Responses<K extends OperationId> = Op<K>['responses'];
type SuccessStatus<K extends OperationId> = Extract<keyof Responses<K>, 200 | 201 | 202>;
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type ResultOf<K extends OperationId> = JsonOf<Responses<K>[SuccessStatus<K>]> extends { result: infer R } ? R : never;
type IsFile<K extends OperationId> = [JsonOf<Responses<K>[SuccessStatus<K>]>] extends [never] ? true : false;

type Part<T, P extends string> = T extends { [key in P]?: infer V } ? NonNullable<V> : never;
type RequestBodyOf<K extends OperationId> = Op<K>['requestBody'] extends infer B
  ? B extends { content: { 'application/json': infer J } }
    ? J
    : B extends { content: { 'multipart/form-data': infer M } }
      ? M
      : undefined
  : undefined;

export interface RouteTypes<K extends OperationId> {
  Params: Part<Op<K>['parameters'], 'path'>;
  Querystring: Part<Op<K>['parameters'], 'query'>;
  Body: RequestBodyOf<K>;
}
export type Req<K extends OperationId> = FastifyRequest<RouteTypes<K>>;
/** An operation's query parameters, as the contract declares them. */
export type Query<K extends OperationId> = RouteTypes<K>['Querystring'];
/** A query whose parameters `D` the handler has given their defaults (so they are always there). */
export type Defaulted<Q, D extends keyof Q> = Omit<Q, D> & { [P in D]-?: NonNullable<Q[P]> };
/**
 * The parameters two operations share (e.g. the user-side and administration lists of one
 * resource): renaming one in either operation removes it here, so its reader fails to compile.
 */
export type SharedQuery<A extends OperationId, B extends OperationId> = Pick<Query<A>, keyof Query<A> & keyof Query<B>>;

/** A JSON success: the envelope is added by the binding. `status` defaults to the operation's lowest success status. */
export interface Success<K extends OperationId> {
  status?: SuccessStatus<K>;
  message: string;
  result: ResultOf<K>;
}
/** A file download. */
export interface FileResult {
  /**
   * `body` is the whole file, or a stream sent as it is produced (large exports) or read (stored
   * files); `size`, when known, is sent as Content-Length with a stream.
   */
  file: { filename: string; contentType: string; body: Uint8Array | Readable; size?: number; inline?: boolean };
}
/**
 * A stream of Server-Sent Events (`text/event-stream`), sent as it is written; the handler's
 * writer ends it (or the client closes it: Fastify then destroys the stream).
 */
export interface EventStreamResult {
  stream: Readable;
}
export type HandlerResult<K extends OperationId> = IsFile<K> extends true ? FileResult | EventStreamResult : Success<K>;
export type Handler<K extends OperationId> = (req: Req<K>, reply: FastifyReply) => Promise<HandlerResult<K>>;
export type Handlers = { [K in OperationId]: Handler<K> };
/** A module's part of the map. */
export type ModuleHandlers<K extends OperationId> = { [P in K]: Handler<P> };

/** The result type of an operation, for repositories and mappers that build it. */
export type Result<K extends OperationId> = ResultOf<K>;
