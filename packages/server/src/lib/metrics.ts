import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/*
 * The process's Prometheus metrics (prom-client): every layer counts what it sees with one line
 * (`metrics.rateLimitRefusals.inc()`), and `GET /metrics` (plugins/metrics.ts) writes them out
 * together with the figures read at scrape time (pool, backlogs). Names follow Prometheus's
 * conventions: base units (seconds), `_total` on counters, one name per thing measured with its
 * variants as labels. deploy/prometheus/alerts.yaml and deploy/grafana/dashboard.json use them
 * (a test checks that every name they use is in the output).
 */

/** Counters and histograms of this process; apps built in one process (tests) add to the same ones. */
export const registry = new Registry();

/** Seconds, from 1 ms to 10 s: an API request, a query, a delivery's wait. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const requestDuration = new Histogram({
  name: 'http_server_request_duration_seconds',
  help: 'Duration of HTTP requests, by operationId (route for the routes outside the contract), method and status class',
  labelNames: ['operation', 'method', 'status_class'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

type Observer = { observe(value: number): void };
const requestChildren = new Map<string, Observer>();
const STATUS_CLASSES = ['0xx', '1xx', '2xx', '3xx', '4xx', '5xx'];

/** Records one answered request (`ms`: from its arrival to its last byte). Label children are kept per combination. */
export function observeRequest(operation: string, method: string, status: number, ms: number): void {
  const statusClass = STATUS_CLASSES[Math.floor(status / 100)] ?? 'other';
  const key = `${operation} ${method} ${statusClass}`;
  let child = requestChildren.get(key);
  if (child === undefined) {
    child = requestDuration.labels(operation, method, statusClass);
    requestChildren.set(key, child);
  }
  child.observe(ms / 1000);
}

const queryDuration = new Histogram({
  name: 'db_query_duration_seconds',
  help: 'Duration of database queries as the server waits for them (PostgreSQL or the embedded PGlite), by outcome',
  labelNames: ['outcome'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});
const queryOk = queryDuration.labels('ok');
const queryError = queryDuration.labels('error');

/**
 * Whether query durations are recorded: from the moment an app serves `/metrics` (METRICS_TOKEN
 * set, plugins/metrics.ts); a process without the route has no reader for them.
 */
let recordingQueries = false;
export const recordQueries = (): void => {
  recordingQueries = true;
};

/** Records one query (Kysely's log event, see db/connect.ts). */
export function observeQuery(ms: number, failed: boolean): void {
  if (recordingQueries) (failed ? queryError : queryOk).observe(ms / 1000);
}

const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
  new Counter<L>({ name, help, labelNames, registers: [registry] });

const cacheLookups = counter('cache_lookups_total', 'Lookups in the server caches, by cache and result (hit or miss)', ['cache', 'result']);
const webhookAttempts = counter('webhook_delivery_attempts_total', 'Webhook delivery attempts, by outcome', ['outcome']);
const liveRefusals = counter('live_stream_refusals_total', 'Live streams refused with 429 LIVE_STREAM_LIMIT, by scope (USER or SERVER)', [
  'scope',
]);
const outboxAttempts = counter('email_outbox_attempts_total', 'E-mail outbox sending attempts, by outcome', ['outcome']);

/** The counters other layers bump. */
export const metrics = {
  rateLimitRefusals: counter('rate_limit_refusals_total', 'Requests refused with 429 RATE_LIMITED'),
  loginLocks: counter('login_locks_total', 'Usernames locked after repeated failed logins'),
  loginLockedRefusals: counter('login_locked_refusals_total', 'Login attempts refused because the username is locked'),
  idempotencyReplays: counter('idempotency_replays_total', 'Stored answers replayed for a repeated Idempotency-Key'),
  preconditionFailures: counter('precondition_failures_total', 'Writes refused with 412 because If-Match no longer matches'),
  corsRefusals: counter('cors_refusals_total', 'Browser requests refused because their Origin is not allowed'),
  /** Live streams (`GET /trade/transports/{id}/live`) open on this process. */
  liveStreamsOpen: new Gauge({
    name: 'live_streams_open',
    help: 'Live transport streams (SSE) open on this process',
    registers: [registry],
  }),
  liveEventsSent: counter('live_events_sent_total', 'Events written to live transport streams (one per stream and event)'),
  liveStreamRefusals: (scope: 'USER' | 'SERVER') => liveRefusals.labels(scope).inc(),
  cache: (cache: string, hit: boolean) => cacheLookups.labels(cache, hit ? 'hit' : 'miss').inc(),
  /** One webhook attempt: `delivered` (2xx), `retried` (failed, due again later) or `failed` (failed for good). */
  webhookAttempt: (outcome: 'delivered' | 'retried' | 'failed') => webhookAttempts.labels(outcome).inc(),
  /** One e-mail of the outbox: `sent`, `retried` or `failed`. */
  outboxAttempt: (outcome: 'sent' | 'retried' | 'failed') => outboxAttempts.labels(outcome).inc(),
};

const deliveryDelay = new Histogram({
  name: 'webhook_delivery_delay_seconds',
  help: 'From the moment a webhook delivery became due (its write committed, or its retry time) to the start of its sending; attempt: first or retry',
  labelNames: ['attempt'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  registers: [registry],
});

/** Records how long a delivery waited between becoming due and being sent. */
export function observeDeliveryDelay(seconds: number, firstAttempt: boolean): void {
  deliveryDelay.labels(firstAttempt ? 'first' : 'retry').observe(Math.max(0, seconds));
}

let processMetrics = false;
/** Process figures (CPU, memory, heap, GC, handles) and event-loop lag, collected once per process. */
export function collectProcessMetrics(): void {
  if (processMetrics) return;
  processMetrics = true;
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });
}
