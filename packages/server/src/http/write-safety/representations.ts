import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../db/schema.js';
import type { OperationId, Req, Result } from '../handlers.js';
import { etagOf } from './policy.js';
import { lockRow } from './repository.js';

/*
 * The current representation of each resource that conditional writes change: the `result` its
 * GET answers, given by one typed function per resource kind that the modules register (their
 * GET handler answers with it too), with the resource's main row, which a conditional write
 * locks. The precondition of a conditional write serializes it with
 * the GET's own serializer (the contract's 200 schema of that GET) and hashes it as the GET's
 * answer is hashed (`etagOf`), so the tag `If-Match` is compared with is the one the GET sent,
 * and no request is made to the server itself.
 */

/** How a representation is read: `forUpdate` inside a conditional write's transaction. */
export interface ReadOptions {
  /**
   * Lock the resource's main row (`SELECT … FOR UPDATE` of it) in the request transaction before
   * or while reading: a read that honours it says so with `locksRow` (its main statement takes
   * the lock, no statement of its own); otherwise the registry locks the row first.
   */
  forUpdate?: boolean;
}

/**
 * The resource's main row: its table and the id the request names. A conditional write locks it
 * (FOR UPDATE) in its transaction before its precondition is checked, so that no other write of
 * the row, conditional or not, runs between the check and the write (every write of the row
 * locks it too, an UPDATE or DELETE by itself). A representation that spans several tables
 * (a transport and its documents) names the row that its writes lock.
 */
export interface MainRow<K extends OperationId> {
  table: keyof Database & string;
  id: (req: Req<K>) => number;
}

/**
 * The resource kind `K` (a GET): its main row and its representation, the `result` the GET
 * answers to the caller of `req`. `read` throws the GET's error (404 of a resource that does not
 * exist or that the caller may not see, 403, 401) when there is none, and reads only: a GET's
 * side effect (a view counted) stays in the GET handler.
 */
export interface Representation<K extends OperationId> {
  row: MainRow<K>;
  read: (req: Req<K>, options?: ReadOptions) => Promise<Result<K>>;
  /** `read` takes the main row's lock itself when asked (`forUpdate`), in its main statement. */
  locksRow?: boolean;
}

/** The registry the modules fill: the representation of each resource GET, by its operationId. */
export type Representations = { [K in OperationId]?: Representation<K> };

declare module 'fastify' {
  interface FastifyRequest {
    /** The representation a conditional write read with the resource's row locked (the handler may use it as its own load). */
    lockedRepresentation: { operationId: string; result: unknown } | null;
  }
}

/**
 * The representation of `operationId` that this request's precondition read with the row locked,
 * in the request's transaction: a write handler uses it as its own load of the resource (read
 * once, the row locked by then). Undefined when there was none (no `If-Match`, `If-Match: *`,
 * or the read failed: the handler then loads and fails as without the header).
 */
export function lockedRepresentation<K extends OperationId>(req: FastifyRequest, operationId: K): Result<K> | undefined {
  const locked = req.lockedRepresentation;
  return locked?.operationId === operationId ? (locked.result as Result<K>) : undefined;
}

/** A resource kind as the write-safety plugin knows it. */
interface ResourceKind {
  operationId: OperationId;
  representation: Representation<OperationId>;
  /** The schema the GET's 200 answer is serialized with (set when the GET's route is added). */
  schema: object | null;
}

/** The resource kinds of an app, by the path template of their GET. */
export class ResourceKinds {
  private readonly byTemplate = new Map<string, ResourceKind>();
  private readonly byOperation = new Map<string, ResourceKind>();

  constructor(representations: Representations, gets: Map<string, OperationId>) {
    for (const [template, operationId] of gets) {
      const representation = representations[operationId] as Representation<OperationId> | undefined;
      if (!representation)
        throw new Error(`${operationId} (${template}) is changed by conditional writes but no module registers its representation`);
      const kind: ResourceKind = { operationId, representation, schema: null };
      this.byTemplate.set(template, kind);
      this.byOperation.set(operationId, kind);
    }
  }

  /** Records the schema of a GET's 200 answer, when that GET is a resource kind's. */
  routeAdded(operationId: string, schema: object | undefined): void {
    const kind = this.byOperation.get(operationId);
    if (kind && schema) kind.schema = schema;
  }

  /** The templates of the kinds whose GET route was never added (a contract/route mismatch). */
  unbound(): string[] {
    return [...this.byTemplate].filter(([, kind]) => kind.schema === null).map(([template]) => template);
  }

  private kind(template: string): ResourceKind & { schema: object } {
    const kind = this.byTemplate.get(template);
    if (!kind?.schema) throw new Error(`no representation for ${template}`);
    return kind as ResourceKind & { schema: object };
  }

  /**
   * The current ETag of the resource at `template` (the request's path parameters) as the caller
   * of `req` would receive it from its GET; null when the GET would fail for that caller (the
   * resource does not exist or is not theirs). Errors other than a 4xx go on. With `forUpdate`
   * (a conditional write, in its transaction), the resource's main row is locked first or by the
   * read itself, and the representation read is kept for the handler (`lockedRepresentation`).
   */
  async currentEtag(req: FastifyRequest, reply: FastifyReply, template: string, options: ReadOptions = {}): Promise<string | null> {
    const kind = this.kind(template);
    const { representation } = kind;
    let result: unknown;
    try {
      if (options.forUpdate && !representation.locksRow)
        await lockRow(req.server.db, representation.row.table, representation.row.id(req as never));
      result = await representation.read(req as never, options);
    } catch (error) {
      const status = (error as { statusCode?: unknown }).statusCode;
      if (typeof status === 'number' && status >= 400 && status < 500) return null;
      throw error;
    }
    if (options.forUpdate) req.lockedRepresentation = { operationId: kind.operationId, result };
    return etagOf(this.serialize(reply, kind.schema, result));
  }

  /**
   * Locks the main row of the resource at `template` (FOR UPDATE, in the request transaction) and
   * says whether it exists: all that `If-Match: *` asks (no representation read, no hash). Whether
   * the caller may see it is the write's own check, answered before the precondition.
   */
  async lockExisting(req: FastifyRequest, template: string): Promise<boolean> {
    const { row } = this.kind(template).representation;
    return lockRow(req.server.db, row.table, row.id(req as never));
  }

  /** The body the GET would send with `result` (its message aside: the ETag starts at `"result":`). */
  private serialize(reply: FastifyReply, schema: object, result: unknown): string {
    // The route's serializer compiler (plugins/serialization.ts) compiles or loads the very
    // function the GET's route uses for that schema; Fastify keeps it per route.
    const serializer = reply.compileSerializationSchema(schema as Record<string, unknown>, '200');
    return serializer({ success: true, message: '', result, errors: null, except: null });
  }
}

/** A module's part of the registry. */
export type ModuleRepresentations<K extends OperationId> = { [P in K]: Representation<P> };
