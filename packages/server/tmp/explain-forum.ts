import { sql } from 'kysely';
import { connect } from '../src/db/connect.js';
import { shownMessages } from '../src/modules/forum/message-repository.js';
const db = connect({ kind: 'postgres', url: 'postgres://postgres@127.0.0.1:5432/transport_ops_writes_try', poolSize: 1 });
const topics = (await sql<{ id: number; title: string }>`select id, title from forum_topics where title like 'Bench % topic'`.execute(db)).rows;
for (const t of topics) {
  const m = (await sql<{ id: number }>`select max(id) as id from forum_messages where topic_id = ${t.id}`.execute(db)).rows[0]!;
  const q = shownMessages(db as any, t.id, 1).where('m.id', '=', m.id).compile();
  const r = await db.executeQuery({ ...q, sql: `explain (analyze, buffers) ${q.sql}` });
  console.log(t.title, '\n', (r.rows as any[]).map((x) => x['QUERY PLAN']).join('\n'));
}
await db.destroy();
