import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OperationId, Req, Result } from '../handlers.js';
import { etagOf } from './policy.js';

/*
 * The current representation of each resource that conditional writes change: the `result` its
 * GET answers, given by one typed function per resource kind that the modules register (their
 * GET handler answers with it too). The precondition of a conditional write serializes it with
 * the GET's own serializer (the contract's 200 schema of that GET) and hashes it as the GET's
 * answer is hashed (`etagOf`), so the tag `If-Match` is compared with is the one the GET sent,
 * and no request is made to the server itself.
 */

/**
 * The representation the GET `K` answers to the caller of `req`. Throws the GET's error (404 of a
 * resource that does not exist or that the caller may not see, 403, 401) when there is none.
 * Reads only: a GET's side effect (a view counted) stays in the GET handler.
 */
export type Representation<K extends OperationId> = (req: Req<K>) => Promise<Result<K>>;

/** The registry the modules fill: the representation of each resource GET, by its operationId. */
export type Representations = { [K in OperationId]?: Representation<K> };

/** A resource kind as the write-safety plugin knows it. */
interface ResourceKind {
  operationId: OperationId;
  read: (req: FastifyRequest) => Promise<unknown>;
  /** The schema the GET's 200 answer is serialized with (set when the GET's route is added). */
  schema: object | null;
}

/** The resource kinds of an app, by the path template of their GET. */
export class ResourceKinds {
  private readonly byTemplate = new Map<string, ResourceKind>();
  private readonly byOperation = new Map<string, ResourceKind>();

  constructor(representations: Representations, gets: Map<string, OperationId>) {
    for (const [template, operationId] of gets) {
      const read = representations[operationId] as ((req: FastifyRequest) => Promise<unknown>) | undefined;
      if (!read)
        throw new Error(`${operationId} (${template}) is changed by conditional writes but no module registers its representation`);
      const kind: ResourceKind = { operationId, read, schema: null };
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

  /**
   * The current ETag of the resource at `template` (the request's path parameters) as the caller
   * of `req` would receive it from its GET; null when the GET would fail for that caller (the
   * resource does not exist or is not theirs). Errors other than a 4xx go on.
   */
  async currentEtag(req: FastifyRequest, reply: FastifyReply, template: string): Promise<string | null> {
    const kind = this.byTemplate.get(template);
    if (!kind?.schema) throw new Error(`no representation for ${template}`);
    let result: unknown;
    try {
      result = await kind.read(req);
    } catch (error) {
      const status = (error as { statusCode?: unknown }).statusCode;
      if (typeof status === 'number' && status >= 400 && status < 500) return null;
      throw error;
    }
    return etagOf(this.serialize(reply, kind.schema, result));
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
