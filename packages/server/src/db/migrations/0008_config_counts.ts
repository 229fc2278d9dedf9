import { type Kysely, sql } from 'kysely';

/*
 * Usage counts of the configuration lists that stay flat from thousands to millions of rows: each
 * vehicle type's transports, each complaint type's complaints, each role's users and each tag's forum
 * topics are counters on the entry, kept by row triggers in the same transaction as the write (the
 * pattern of `actors.transports_count` in 0007). A list reads one row per entry instead of counting
 * the referring rows of every entry on every request.
 * Frozen in time: never import application code here.
 */

/** [referring table, its foreign key, the counted table, the counter column]. */
const COUNTS: Array<[string, string, string, string]> = [
  ['transports', 'vehicle_type_id', 'vehicle_types', 'transports_count'],
  ['complaints', 'complaint_type_id', 'complaint_types', 'complaints_count'],
  ['users', 'role_id', 'roles', 'users_count'],
  ['forum_topic_tags', 'tag_id', 'tags', 'topics_count'],
];

const fn = (source: string, target: string) => `${target}_count_${source}`;

function statements(source: string, fk: string, target: string, counter: string): string[] {
  return [
    `alter table ${target} add column ${counter} integer not null default 0`,
    `create function ${fn(source, target)}() returns trigger language plpgsql as $$
      begin
        if tg_op in ('UPDATE', 'DELETE') and old.${fk} is not null then
          update ${target} set ${counter} = ${counter} - 1 where id = old.${fk};
        end if;
        if tg_op in ('UPDATE', 'INSERT') and new.${fk} is not null then
          update ${target} set ${counter} = ${counter} + 1 where id = new.${fk};
        end if;
        return null;
      end $$`,
    `create trigger ${source}_count_${fk} after insert or delete on ${source}
      for each row execute function ${fn(source, target)}()`,
    `create trigger ${source}_recount_${fk} after update of ${fk} on ${source}
      for each row when (old.${fk} is distinct from new.${fk}) execute function ${fn(source, target)}()`,
    `update ${target} x set ${counter} = c.n
      from (select ${fk} as id, count(*)::int as n from ${source} where ${fk} is not null group by 1) c where c.id = x.id`,
  ];
}

export async function up(db: Kysely<any>): Promise<void> {
  for (const [source, fk, target, counter] of COUNTS) {
    for (const statement of statements(source, fk, target, counter)) await sql.raw(statement).execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [source, fk, target, counter] of [...COUNTS].reverse()) {
    await sql.raw(`drop trigger if exists ${source}_recount_${fk} on ${source}`).execute(db);
    await sql.raw(`drop trigger if exists ${source}_count_${fk} on ${source}`).execute(db);
    await sql.raw(`drop function if exists ${fn(source, target)}()`).execute(db);
    await sql.raw(`alter table ${target} drop column if exists ${counter}`).execute(db);
  }
}
