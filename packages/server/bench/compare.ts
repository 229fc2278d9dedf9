/**
 * `pnpm bench:compare [small.md] [large.md]`: the flat-latency check between two `pnpm bench`
 * result tables (default: the smallest and the largest dataset's tables in bench/results). For every list and statistics
 * scenario it prints the full server's latency on both datasets and their ratio, and flags those
 * that grow beyond 1.5x (a difference under 0.5 ms, the noise of a single run, passes) or reach
 * 50 ms. Latency is the time per request the run's throughput gives (connections x 1000 / req/s,
 * the exact mean round trip of a closed loop): autocannon records latencies in whole milliseconds,
 * so on a fast machine its p50 and mean of sub-millisecond requests are 0 or 1, not a measure.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { scenarios } from './scenarios.js';

const here = new URL('.', import.meta.url).pathname;
// Tables are named by their dataset's transport count (`<count>.md`).
const bySize = readdirSync(join(here, 'results'))
  .filter((name) => /^\d+\.md$/.test(name))
  .sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10))
  .map((name) => join(here, 'results', name));
const [smallFile = bySize[0]!, largeFile = bySize.at(-1)!] = process.argv.slice(2);

function latencies(file: string): Map<string, number> {
  const text = readFileSync(file, 'utf8');
  const connections = Number(/(\d+) connection\(s\)/.exec(text)?.[1] ?? 1);
  const lines = text.split('\n').filter((l) => l.startsWith('| '));
  const cells = (l: string) =>
    l
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
  const header = cells(lines[0]!);
  const rps = header.indexOf('full req/s');
  return new Map(
    lines
      .slice(1)
      .map((l) => [cells(l)[0]!.replace(/ \(.*non-2xx!\)$/, ''), Number(((connections * 1000) / Number(cells(l)[rps])).toFixed(2))]),
  );
}

const small = latencies(smallFile);
const large = latencies(largeFile);
const listed = scenarios({ transportId: 1, deepCursor: '', topicId: 1 }).filter((s) => s.list);
let failed = 0;
console.log(
  `| scenario | ${smallFile.split('/').at(-1)} ms/req | ${largeFile.split('/').at(-1)} ms/req | growth | |\n|---|--:|--:|--:|---|`,
);
for (const s of listed) {
  const a = small.get(s.name);
  const b = large.get(s.name);
  if (a === undefined || b === undefined) continue;
  const flat = b <= 1.5 * a || b - a < 0.5;
  const ok = flat && b < 50;
  if (!ok) failed++;
  console.log(`| ${s.name} | ${a} | ${b} | ${a > 0 ? (b / a).toFixed(1) : '-'}x | ${ok ? '' : flat ? 'over 50 ms' : 'grows'} |`);
}
console.log(`\n${failed} of ${listed.length} list and statistics scenarios outside the target`);
