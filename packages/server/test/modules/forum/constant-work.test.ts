import { type CompiledQuery, sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { shownMessages } from '../../../src/modules/forum/message-repository.js';
import { useTestApp } from '../../support/app.js';
import { mainMessageId, messageRow, newMessage, newTopic, userId } from './helpers.js';

/*
 * Reading or posting a message costs the same in a topic of 20 messages and in one of 2,000: what
 * decides whether a message is shown sits on its own row (replies_count, migration 0016), so the
 * database reads the same pages for either. Measured as the buffers PostgreSQL touches to run the
 * statements, which unlike time do not depend on the machine's load.
 */

const t = useTestApp();
let agent: string;
let agentId: number;
beforeAll(async () => {
  agent = await t.token('agent');
  agentId = await userId(t, 'agent');
});

/** Shared buffers (hit or read) a statement touches when run, planning left out. */
async function buffers(query: CompiledQuery): Promise<number> {
  const { rows } = await t.db.executeQuery<{ 'QUERY PLAN': Array<{ Plan: Record<string, number> }> }>({
    ...query,
    sql: `explain (analyze, buffers, format json) ${query.sql}`,
  });
  const plan = rows[0]!['QUERY PLAN'][0]!.Plan;
  return plan['Shared Hit Blocks']! + plan['Shared Read Blocks']!;
}

/** A topic with `size` messages: a thread of replies, with deleted and hidden ones among them. */
async function topicOf(size: number) {
  const topic = await newTopic(t, agent);
  const main = await mainMessageId(t, topic.id);
  // Bulk rows: visible top-level messages (no shown replies to count), then a thread through the API.
  await sql`insert into forum_messages (topic_id, author_id, content, parent_id, is_hidden, deleted_at)
    select ${topic.id}, ${agentId}, 'Bulk message ' || g, ${main}, g % 7 = 0, case when g % 11 = 0 then now() end
    from generate_series(1, ${size - 4}) g`.execute(t.db);
  await sql`update forum_messages m set replies_count = (select count(*) from forum_messages r where r.parent_id = m.id
      and ((r.deleted_at is null and not r.is_hidden) or r.replies_count > 0))
    where m.id = ${main}`.execute(t.db);
  const first = await newMessage(t, agent, topic.id, main);
  const second = await newMessage(t, agent, topic.id, first.id);
  const third = await newMessage(t, agent, topic.id, second.id);
  await sql`analyze forum_messages`.execute(t.db);
  return { topicId: topic.id, main, first: first.id, second: second.id, third: third.id };
}

describe('forum messages in constant work per message', () => {
  it('reads a message, a placeholder and a reply with the same buffers in a 20- and a 2,000-message topic', async () => {
    const small = await topicOf(20);
    const large = await topicOf(2000);
    const count = async (topicId: number) =>
      Number(
        (
          await t.db
            .selectFrom('forum_messages')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('topic_id', '=', topicId)
            .executeTakeFirstOrThrow()
        ).n,
      );
    expect(await count(small.topicId)).toBe(20);
    expect(await count(large.topicId)).toBe(2000);
    // The middle of the thread deleted: it stays as a placeholder over its visible reply.
    for (const topic of [small, large]) {
      const res = await t.call('deleteForumMessage', { token: agent, params: { id: topic.second } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect((await messageRow(t, topic.second)).deleted_at).not.toBeNull();
    }
    const read = (topic: typeof small, id: number) => buffers(shownMessages(t.db, topic.topicId, agentId).where('m.id', '=', id).compile());
    for (const which of ['first', 'second', 'third'] as const) {
      // Run once to warm the caches, then measure.
      await read(small, small[which]);
      await read(large, large[which]);
      const [inSmall, inLarge] = [await read(small, small[which]), await read(large, large[which])];
      expect(inLarge, `${which}: ${inSmall} buffers in the small topic, ${inLarge} in the large one`).toBeLessThanOrEqual(inSmall + 2);
    }
    // What the API answers for the placeholder: shown, with its one shown reply.
    const placeholder = await t.call('getForumMessageById', { token: agent, params: { id: large.second } });
    expect(placeholder.status, JSON.stringify(placeholder.body)).toBe(200);
    expect(placeholder.body.result.isDeleted).toBe(true);
    expect(placeholder.body.result.repliesCount).toBe(1);
    // Deleting the last visible descendant takes the placeholder away with it.
    const gone = await t.call('deleteForumMessage', { token: agent, params: { id: large.third } });
    expect(gone.status, JSON.stringify(gone.body)).toBe(200);
    const after = await t.call('getForumMessageById', { token: agent, params: { id: large.second } });
    expect(after.status).toBe(404);
    expect(after.body.errors.code).toBe('MESSAGE_NOT_FOUND');
    expect((await messageRow(t, large.first)).replies_count).toBe(0);
  });
});
