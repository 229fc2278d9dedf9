/**
 * `tsx bench/explain.ts [substring]`: EXPLAIN ANALYZE of every statement the server issues for the
 * matching scenarios, on the benchmark database: the execution time of each and any sequential scan.
 */
import pg from 'pg';
import { captureStatements } from './capture.js';
import { scenarios } from './scenarios.js';
import { benchDatabaseUrl } from './target.js';

const url = benchDatabaseUrl();
const only = process.argv[2];
const pool = new pg.Pool({ connectionString: url, max: 1 });
const { rows } = await pool.query('select max(id) as id from transports');
const topic = await pool.query('select id from forum_topics order by messages_count desc, id limit 1');
const list = scenarios({ transportId: rows[0].id, deepCursor: '', topicId: topic.rows[0]?.id ?? 1 }).filter(
  (s) => !s.path.includes('cursor=') && (!only || s.name.includes(only)),
);
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
  }
}
await pool.end();
