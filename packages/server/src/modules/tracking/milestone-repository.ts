import type { Insertable } from 'kysely';
import type { TransportMilestonesTable } from '../../db/schema.js';
import type { AuthContext } from '../../lib/identity.js';
import { ownedBy } from '../../lib/scope.js';
import type { Db } from './repository.js';

/** The transport within the caller's scope, locked until the commit (its status may move with the milestone). */
export const lockVisibleTransport = (trx: Db, auth: AuthContext, id: number) =>
  trx
    .selectFrom('transports as t')
    .select(['t.id', 't.status', 't.validation_level', 't.customer_id', 't.loading_number'])
    .where('t.id', '=', id)
    .where(ownedBy(auth, 't.created_by'))
    .forUpdate()
    .executeTakeFirst();

export const insertMilestone = (trx: Db, values: Insertable<TransportMilestonesTable>) =>
  trx.insertInto('transport_milestones').values(values).returningAll().executeTakeFirstOrThrow();
