import { sql } from 'kysely';
import { connect } from '../src/db/connect.js';
import { createMigrator, migrateToLatest } from '../src/db/migrate.js';
import { seedDemoData } from '../src/db/seed.js';
const url = process.env.URL!;
const db = connect(url ? { kind: 'postgres', url, poolSize: 2 } : { kind: 'pglite', dataDir: 'memory://' });
const t0 = Date.now();
const m = await createMigrator(db).migrateTo('0013_covering_scope_indexes');
if (m.error) throw m.error;
await seedDemoData(db);
console.log('seeded', Date.now() - t0);
await migrateToLatest(db);
console.log('migrated');
const q = async (s: string) => (await sql.raw(s).execute(db)).rows;
console.log(await q(`select status, sum(transports) from transport_user_counts group by 1`));
console.log(await q(`select count(*) from counter_deltas`));
const agent = (await q(`select id from users where username='agent'`))[0] as any;
await q(
  `insert into transports (charger_first_name, charger_last_name, vehicle_type_id, loading_point, created_by, total_product_value, customer_id) select 'a','b',1,'x',${agent.id}, 10.5, (select id from actors where actor_role='CUSTOMER' limit 1) from generate_series(1,3)`,
);
await q(`update transports set status='CANCELLED' where id = (select max(id) from transports)`);
await q(`delete from transports where id = (select max(id) from transports)`);
console.log(await q(`select * from transport_user_counts_delta`));
console.log(await q(`select * from transport_day_counts_delta`));
console.log(await q(`select * from counter_deltas`));
console.log(await q(`select fold_statistics()`));
console.log(await q(`select count(*) from transport_user_counts_delta`), await q(`select * from vehicle_types where id=1`));
const down = await createMigrator(db).migrateTo('0013_covering_scope_indexes');
if (down.error) throw down.error;
await q(
  `insert into transports (charger_first_name, charger_last_name, vehicle_type_id, loading_point, created_by) values ('a','b',1,'x',${agent.id})`,
);
console.log(
  await q(`select status, sum(transports) from transport_user_counts group by 1`),
  await q(`select transports_count from vehicle_types where id=1`),
);
await migrateToLatest(db);
console.log('up again');
await db.destroy();
