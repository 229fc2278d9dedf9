/**
 * `pnpm bench:compare <small database url> <large database url>`: the flat-latency check, measured
 * with both datasets side by side. It starts the built server once on each database (two processes,
 * as users start it) and, scenario by scenario, loads them in alternation: BENCH_ROUNDS rounds
 * (default 5) of a BENCH_SECONDS run (default 1) on each, the order swapped every round, after a
 * BENCH_PRIME run (default 1 s) on each. A slow minute of a shared machine then falls on both sides
 * of a ratio instead of on one table of two written a quarter of an hour apart, which is what moved
 * single scenarios by up to 1.8x between runs on data of the same size.
 *
 * For every list and statistics scenario it prints the time per request on both datasets (from the
 * requests answered over the time spent: one connection's closed loop, so the exact mean round
 * trip), their ratio, the lowest and highest ratio of single rounds (the noise), and flags those
 * that grow beyond 1.5x (a difference under 0.5 ms passes) or reach 50 ms. A page that comes back
 * empty on the small dataset and full on the large one (a deep page beyond the small one's rows) is
 * marked as such and not counted either way: it compares no rows with ten. Writes the table to
 * bench/results/growth.md. BENCH_ONLY=<substring>[|<substring>…] selects scenarios (printed, and written only to
 * bench/results/<BENCH_OUT> when BENCH_OUT names a file). Both databases
 * come from `pnpm bench:data` (the URLs may also be given as BENCH_SMALL_URL and BENCH_LARGE_URL).
 * Exits 1 when a scenario answers with an error, not when one grows: the figures are the output.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { autocannon, datasetContext, login, machine, startServer, stopAll, waitFor } from './harness.js';
import { type Scenario, scenarios } from './scenarios.js';

const [smallUrl = process.env.BENCH_SMALL_URL, largeUrl = process.env.BENCH_LARGE_URL] = process.argv.slice(2);
if (!smallUrl || !largeUrl) {
  console.error('usage: pnpm bench:compare <small database url> <large database url> (both built by pnpm bench:data)');
  process.exit(2);
}
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const seconds = Number(process.env.BENCH_SECONDS ?? 1);
const prime = Number(process.env.BENCH_PRIME ?? 1);
const only = process.env.BENCH_ONLY?.split('|').filter(Boolean);
const here = new URL('.', import.meta.url).pathname;

interface Side {
  transports: number;
  list: Scenario[];
  base: string;
  tokens: Map<string, string>;
}
async function side(url: string): Promise<Side> {
  const { transports, context } = await datasetContext(url);
  const list = scenarios(context).filter((s) => s.list && (!only || only.some((o) => s.name.includes(o))));
  const { base } = await startServer(url);
  await waitFor(base);
  return { transports, list, base, tokens: await login(base) };
}
const small = await side(smallUrl);
const large = await side(largeUrl);
if (small.list.map((s) => s.name).join() !== large.list.map((s) => s.name).join()) {
  console.error('the two datasets answer different scenarios: build both with the same pnpm bench:data options (--busy-agent)');
  process.exit(2);
}

/** Requests answered and seconds spent on one side over all rounds. */
interface Tally {
  requests: number;
  seconds: number;
  bad: number;
}
const run = async (s: Side, scenario: Scenario, duration: number, tally?: Tally) => {
  const r = await autocannon(`${s.base}${scenario.path}`, scenario, duration, { tokens: s.tokens });
  if (tally) {
    tally.requests += r.requests.total;
    tally.seconds += r.duration;
    tally.bad += r.non2xx + r.errors;
  }
  return r.requests.total > 0 ? (r.duration * 1000) / r.requests.total : Number.POSITIVE_INFINITY;
};
/** How many items a list answer holds (`result` an array, or `result.data`); null for other answers. */
const items = async (s: Side, scenario: Scenario): Promise<number | null> => {
  const headers: Record<string, string> = scenario.role === 'anonymous' ? {} : { authorization: `Bearer ${s.tokens.get(scenario.role)}` };
  const body = (await (await fetch(`${s.base}${scenario.path}`, { headers })).json()) as { result?: unknown };
  const result = body.result as { data?: unknown } | unknown[] | undefined;
  if (Array.isArray(result)) return result.length;
  return Array.isArray(result?.data) ? result.data.length : null;
};

const header = `| scenario | role | ${small.transports.toLocaleString('en')} ms/req | ${large.transports.toLocaleString('en')} ms/req | growth | rounds min-max | |`;
const rows: string[] = [];
console.log(header);
let grows = 0;
let errors = 0;
let incomparable = 0;
for (const [n, a] of small.list.entries()) {
  const b = large.list[n]!;
  if (prime > 0) {
    await run(small, a, prime);
    await run(large, b, prime);
  }
  // A page that is empty on the small dataset (a deep page beyond its rows) loads no rows there:
  // its ratio compares an empty answer with a full one, not the same work on more data.
  const empty = (await items(small, a)) === 0 && ((await items(large, b)) ?? 0) > 0;
  const ta: Tally = { requests: 0, seconds: 0, bad: 0 };
  const tb: Tally = { requests: 0, seconds: 0, bad: 0 };
  const ratios: number[] = [];
  for (let r = 0; r < rounds; r++) {
    // The order alternates, so neither side always runs right after the other's load.
    const ms = { small: 0, large: 0 };
    for (const which of r % 2 === 0 ? (['small', 'large'] as const) : (['large', 'small'] as const)) {
      ms[which] = which === 'small' ? await run(small, a, seconds, ta) : await run(large, b, seconds, tb);
    }
    ratios.push(ms.large / ms.small);
  }
  const msA = (ta.seconds * 1000) / ta.requests;
  const msB = (tb.seconds * 1000) / tb.requests;
  const flat = msB <= 1.5 * msA || msB - msA < 0.5;
  const ok = flat && msB < 50;
  const bad = ta.bad + tb.bad;
  if (bad) errors++;
  else if (empty) incomparable++;
  else if (!ok) grows++;
  const verdict = bad ? `${bad} errors!` : empty ? 'empty page on the small dataset' : ok ? '' : flat ? 'over 50 ms' : 'grows';
  const line = `| ${a.name} | ${a.role} | ${msA.toFixed(2)} | ${msB.toFixed(2)} | ${(msB / msA).toFixed(2)}x | ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)} | ${verdict} |`;
  console.log(line);
  rows.push(line);
}
stopAll();

const summary = `${grows} of ${rows.length} list and statistics scenarios outside the target (growth beyond 1.5x and 0.5 ms, or 50 ms); ${incomparable} not comparable (their page is empty on the small dataset)`;
console.log(`\n${summary}`);
const report = [
  `# Growth: ${small.transports.toLocaleString('en')} against ${large.transports.toLocaleString('en')} transports`,
  '',
  `Machine: ${machine()}. PostgreSQL at ${new URL(largeUrl).host}. One connection; per scenario a ${prime} s priming run on each`,
  `database, then ${rounds} rounds of a ${seconds} s run on each, in alternating order; ms/req is the time spent over the`,
  'requests answered in all rounds, "rounds min-max" the lowest and highest ratio of single rounds.',
  'The two servers (`node dist/server.js`, one per database) and the load generator run in processes of their own.',
  '',
  header,
  '|---|---|--:|--:|--:|--:|---|',
  ...rows,
  '',
  summary,
  '',
].join('\n');
// A subset (BENCH_ONLY) is printed only, unless BENCH_OUT names its file: growth.md always holds every scenario.
const out = only ? process.env.BENCH_OUT : 'growth.md';
if (out) {
  mkdirSync(join(here, 'results'), { recursive: true });
  writeFileSync(
    join(here, 'results', out),
    only ? report.replace('\n\n', `\n\nScenarios matching BENCH_ONLY=${only.join('|')}.\n\n`) : report,
  );
  console.log(`written to bench/results/${out}`);
}
if (errors) process.exit(1);
