import { type Kysely, sql, type SqlBool } from 'kysely';
import type { Database } from '../db/schema.js';
import type { AuthContext } from './identity.js';
import { hasGlobalView, ownedBy } from './scope.js';

/**
 * The one scope rule for every field that names a customer (a transport's or a complaint's
 * `customerId`): supervisors and administrators may name any customer; agents and team managers
 * only the customers of transports they can see (the customers they were given). Anything else is
 * answered as a customer that does not exist, so that a write cannot attach, and a read then
 * show, another team's customer and their contact details.
 */
export async function findCustomerInScope(db: Kysely<Database>, auth: AuthContext, id: number, options: { activeOnly: boolean }) {
  let query = db.selectFrom('actors').select(['id', 'email', 'phone']).where('id', '=', id).where('actor_role', '=', 'CUSTOMER');
  if (options.activeOnly) query = query.where('is_active', '=', true);
  if (!hasGlobalView(auth)) {
    query = query.where(
      sql<SqlBool>`exists (select 1 from transports t where t.customer_id = actors.id and ${ownedBy(auth, 't.created_by')})`,
    );
  }
  return query.executeTakeFirst();
}
