/** Where the benchmark's data lives: BENCH_DATABASE_URL, else a database of its own on the local PostgreSQL. */
export const benchDatabaseUrl = (): string => process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/transport_ops_bench';

/** The same server's maintenance database (to create and drop the benchmark's). */
export function serverUrl(url: string): string {
  const u = new URL(url);
  u.pathname = '/postgres';
  return u.toString();
}
