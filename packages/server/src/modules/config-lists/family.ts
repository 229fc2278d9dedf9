import type { FastifyInstance } from 'fastify';
import type { Insertable, Updateable } from 'kysely';
import type { UniqueName } from '../../db/constraints.js';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../lib/errors.js';
import { audit, type AuditSource } from '../../lib/audit.js';
import { isForeignKeyViolation, isUniqueViolation } from '../../lib/db-errors.js';
import { fetchPage, type Listable, pageMeta, type PageMeta } from '../../lib/paging.js';
import { type ConfigTable, type Db, deleteRow, insertRow, lockRow, updateRow } from './repository.js';

/** A unique constraint of the list and the contract's 409 it stands for. */
export interface UniqueRule<C, U, R> {
  constraint: UniqueName;
  field: string;
  message: string;
  /** The value that collided: from the request, else from the entry being changed. */
  value(input: C | U, current?: R): string;
}

type Keyed<F extends string> = { [P in F]?: unknown };

/** A unique field whose colliding value is the request's, else the entry's own. */
export function uniqueField<F extends string>(constraint: UniqueName, field: F, message: string): UniqueRule<Keyed<F>, Keyed<F>, Keyed<F>> {
  return { constraint, field, message, value: (input, current) => String(input[field] ?? current?.[field] ?? '') };
}

/** What differs between the configuration lists (categories, tags, vehicle types, ...). */
export interface ConfigList<T extends ConfigTable, Row, R extends { isActive: boolean }, Q, C, U> {
  table: T;
  /** `resource` of the error details: "tag", "vehicle_type". */
  resource: string;
  /** Singular and plural labels of the messages: "Tag", "Tags". */
  label: string;
  plural: string;
  /** The filtered, ordered rows of a list request (paged by the block). */
  list(db: Db, query: Q): Listable<Row>;
  toResult(row: Row): R;
  find(db: Db, id: number): Promise<R | undefined>;
  toInsert(body: C): Insertable<Database[T]>;
  toUpdate(patch: U): Updateable<Database[T]>;
  unique: UniqueRule<NoInfer<C>, NoInfer<U>, NoInfer<R>>[];
  /** Records that refer to the entry: a delete is refused while there are any. */
  usage(db: Db, id: number): Promise<number>;
  inUseMessage: string;
  /** The error for a foreign key the entry's own fields break (e.g. a state's country). */
  referenceError?(input: C | U): Error;
  /** Rules of one list: they throw to refuse. */
  checkCreate?(trx: Db, body: C): Promise<void>;
  checkUpdate?(trx: Db, current: R, patch: U): Promise<void>;
  checkDelete?(current: R): void;
  checkStatus?(current: R, isActive: boolean): void;
  /** Runs in the update's transaction; returns the sessions it revoked (forgotten after the commit). */
  afterUpdate?(trx: Db, current: R, patch: U): Promise<number[]>;
  /** After any committed change (e.g. caches that show the entries). */
  afterChange?(server: FastifyInstance): Promise<void>;
}

/** The part of a request the block reads (with what the audit log keeps of it): every operation's typed request fits in it. */
type In<P> = { server: FastifyInstance } & AuditSource & P;
const fields = (value: unknown) => value as Record<string, unknown>;
type IdParams = { params: { id: number } };
type Success<R> = Promise<{ message: string; result: R }>;

/** The six operations of one configuration list, written once. */
export function configListHandlers<
  T extends ConfigTable,
  Row,
  R extends { isActive: boolean },
  Q extends { page?: number; limit?: number },
  C,
  U,
>(list: ConfigList<T, Row, R, Q, C, U>) {
  const { table, resource, label } = list;
  /** The resource in the audit log's snake case (`complaintType` is `complaint_type`). */
  const kind = resource.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  const notFound = (id: number) => new AppError('RESOURCE_NOT_FOUND', { resource, id }, `${label} not found`);
  const inUse = (id: number, usageCount: number) => new AppError('RESOURCE_IN_USE', { resource, id, usageCount }, list.inUseMessage);

  /** The contract's error for a constraint the write broke, or the error itself. */
  function asContractError(error: unknown, input: C | U, current?: R): unknown {
    const rule = list.unique.find((r) => isUniqueViolation(error, r.constraint));
    if (rule) return new AppError('ALREADY_EXISTS', { resource, field: rule.field, value: rule.value(input, current) }, rule.message);
    if (list.referenceError && isForeignKeyViolation(error)) return list.referenceError(input);
    return error;
  }

  async function locked(trx: Db, id: number): Promise<R> {
    const current = (await lockRow(trx, table, id)) ? await list.find(trx, id) : undefined;
    if (!current) throw notFound(id);
    return current;
  }

  /** The entry as its GET answers it, its row the entry's own (write-safety/representations.ts). */
  const representation = {
    row: { table, id: (req: IdParams) => req.params.id },
    async read(req: In<IdParams>): Promise<R> {
      const found = await list.find(req.server.db, req.params.id);
      if (!found) throw notFound(req.params.id);
      return found;
    },
  };

  async function changed<V>(server: FastifyInstance, value: V): Promise<V> {
    await list.afterChange?.(server);
    return value;
  }

  return {
    async list(req: In<{ query: Q }>): Success<{ data: R[]; meta: PageMeta }> {
      const { page = 1, limit = 10 } = req.query;
      const { rows, total } = await fetchPage(list.list(req.server.db, req.query), page, limit, req.server.db);
      return { message: `${list.plural} retrieved`, result: { data: rows.map(list.toResult), meta: pageMeta(total, page, limit) } };
    },

    /** The entry as its GET answers it (write-safety/representations.ts). */
    representation,

    async get(req: In<IdParams>): Success<R> {
      return { message: `${label} retrieved`, result: await representation.read(req) };
    },

    async create(req: In<{ body: C }>): Success<R> {
      const body = req.body;
      const created = await req.server.db
        .transaction()
        .execute(async (trx) => {
          await list.checkCreate?.(trx, body);
          const row = await locked(trx, await insertRow(trx, table, list.toInsert(body)));
          const id = fields(row).id as number;
          await audit(trx, req, { action: `${kind}.created`, resource: { type: kind, id }, after: fields(body) });
          return row;
        })
        .catch((error: unknown) => {
          throw asContractError(error, body);
        });
      return { message: `${label} created`, result: await changed(req.server, created) };
    },

    async update(req: In<IdParams & { body: U }>): Success<R> {
      const { id } = req.params;
      const patch = req.body;
      let current: R | undefined;
      const { updated, revoked } = await req.server.db
        .transaction()
        .execute(async (trx) => {
          current = await locked(trx, id);
          await list.checkUpdate?.(trx, current, patch);
          await updateRow(trx, table, id, list.toUpdate(patch));
          const revoked = (await list.afterUpdate?.(trx, current, patch)) ?? [];
          await audit(trx, req, { action: `${kind}.updated`, resource: { type: kind, id }, before: fields(current), after: fields(patch) });
          return { updated: await locked(trx, id), revoked };
        })
        .catch((error: unknown) => {
          throw asContractError(error, patch, current);
        });
      await req.server.sessions.forget(revoked);
      return { message: `${label} updated`, result: await changed(req.server, updated) };
    },

    async remove(req: In<IdParams>): Success<null> {
      const { db } = req.server;
      const { id } = req.params;
      try {
        // The row lock makes writers that would refer to the entry wait for this decision.
        await db.transaction().execute(async (trx) => {
          const current = await locked(trx, id);
          list.checkDelete?.(current);
          const usageCount = await list.usage(trx, id);
          if (usageCount > 0) throw inUse(id, usageCount);
          await deleteRow(trx, table, id);
          await audit(trx, req, { action: `${kind}.deleted`, resource: { type: kind, id }, before: fields(current) });
        });
      } catch (error) {
        if (!isForeignKeyViolation(error)) throw error;
        throw inUse(id, Math.max(1, await list.usage(db, id)));
      }
      return { message: `${label} deleted`, result: await changed(req.server, null) };
    },

    async setStatus(req: In<IdParams & { body: { isActive: boolean } }>): Success<R> {
      const { id } = req.params;
      const { isActive } = req.body;
      const result = await req.server.db.transaction().execute(async (trx) => {
        const current = await locked(trx, id);
        list.checkStatus?.(current, isActive);
        // Setting the current value again changes nothing, not even updatedAt.
        if (current.isActive === isActive) return current;
        await updateRow(trx, table, id, { is_active: isActive } as unknown as Updateable<Database[T]>);
        await audit(trx, req, {
          action: `${kind}.${isActive ? 'activated' : 'deactivated'}`,
          resource: { type: kind, id },
          before: { isActive: current.isActive },
          after: { isActive },
        });
        return locked(trx, id);
      });
      return { message: `${label} ${isActive ? 'activated' : 'deactivated'}`, result: await changed(req.server, result) };
    },
  };
}
