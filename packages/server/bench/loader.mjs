// The load generator of `pnpm bench` and `pnpm bench:compare`: a process of its own that runs
// autocannon runs on request (IPC from `harness.ts`), so that a run costs no process start and
// short runs in alternation are cheap. Each answer carries autocannon's figures and the run's own
// wall-clock length (autocannon rounds its `duration` to 10 ms).
import autocannon from 'autocannon';

/**
 * `paths` (several): each connection sends its requests to one of them, in turn. `chainEtag`: each
 * connection sends as `If-Match` the `ETag` of its previous answer (`*` for its first request),
 * as a client chaining conditional writes of its own resource does.
 */
function perConnection({ paths, chainEtag, ...options }) {
  if (!paths && !chainEtag) return options;
  let next = 0;
  return Object.assign(options, {
    requests: [
      {
        setupRequest(req, context) {
          if (paths && context.path === undefined) context.path = paths[next++ % paths.length];
          const headers = chainEtag ? Object.assign({}, req.headers, { 'if-match': context.etag ?? '*' }) : req.headers;
          return Object.assign({}, req, { headers }, paths ? { path: context.path } : {});
        },
        onResponse(_status, _body, context, headers) {
          if (chainEtag && headers.etag) context.etag = headers.etag;
        },
      },
    ],
  });
}

process.on('message', ({ id, options }) => {
  const started = process.hrtime.bigint();
  autocannon(perConnection(options), (error, result) => {
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
