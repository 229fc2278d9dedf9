/**
 * `tsx bench/explain.ts [substring]`: EXPLAIN ANALYZE of every statement the server issues for the
 * matching scenarios, on the benchmark database: the execution time of each and any sequential scan
 * (`--plans`: each plan in full, as text).
 */
import pg from 'pg';
import { RARE_TERM_SQL } from './busy-agent.js';
import { captureStatements } from './capture.js';
import { scenarios } from './scenarios.js';
import { benchDatabaseUrl } from './target.js';

const url = benchDatabaseUrl();
const plans = process.argv.includes('--plans');
const only = process.argv.slice(2).find((a) => a !== '--plans');
const pool = new pg.Pool({ connectionString: url, max: 1 });
const { rows } = await pool.query('select max(id) as id from transports');
const topic = await pool.query('select id from forum_topics order by messages_count desc, id limit 1');
const rare = await pool.query(RARE_TERM_SQL);
const list = scenarios({
  transportId: rows[0].id,
  deepCursor: '',
  topicId: topic.rows[0]?.id ?? 1,
  rareTerm: rare.rows[0]?.term ?? null,
}).filter((s) => !s.path.includes('cursor=') && (!only || s.name.includes(only)));
for (const replay of await captureStatements(url, list)) {
  console.log(`\n## ${replay.name}`);
  for (const s of replay.statements) {
    if (!/^\s*(\/\*[^*]*\*\/\s*)?(select|with)/i.test(s.sql)) continue;
    const plan = await pool.query(`explain (analyze, format json) ${s.sql}`, s.parameters);
    const p = plan.rows[0]['QUERY PLAN'][0];
    const text = JSON.stringify(p.Plan);
    const seq = [...text.matchAll(/"Node Type":"Seq Scan"[^}]*?"Relation Name":"(\w+)"/g)].map((m) => m[1]);
    console.log(
      `${p['Execution Time'].toFixed(1).padStart(8)} ms ${seq.length ? `SEQ SCAN ${seq.join(',')} ` : ''}${s.sql.replace(/\s+/g, ' ').slice(0, 150)}`,
    );
    if (plans) {
      const text = await pool.query(`explain (analyze, buffers) ${s.sql}`, s.parameters);
      console.log(`${s.sql}\n${JSON.stringify(s.parameters)}\n${text.rows.map((r) => r['QUERY PLAN']).join('\n')}\n`);
    }
  }
}
await pool.end();
