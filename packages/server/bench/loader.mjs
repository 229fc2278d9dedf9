// The load generator of `pnpm bench` and `pnpm bench:compare`: a process of its own that runs
// autocannon runs on request (IPC from `harness.ts`), so that a run costs no process start and
// short runs in alternation are cheap. Each answer carries autocannon's figures and the run's own
// wall-clock length (autocannon rounds its `duration` to 10 ms).
import autocannon from 'autocannon';

process.on('message', ({ id, options }) => {
  const started = process.hrtime.bigint();
  autocannon(options, (error, result) => {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    if (error) return process.send({ id, error: String(error) });
    process.send({
      id,
      result: {
        latency: { p50: result.latency.p50, p99: result.latency.p99, average: result.latency.average },
        requests: { average: result.requests.average, total: result.requests.total },
        duration: seconds,
        non2xx: result.non2xx,
        errors: result.errors,
      },
    });
  });
});
process.on('disconnect', () => process.exit(0));
