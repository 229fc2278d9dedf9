import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from './config.js';
import { installTracer } from './lib/tracing.js';

/** The response header that tells a client its request's trace (W3C Trace Context Level 2). */
export const TRACE_RESPONSE_HEADER = 'traceresponse';

/**
 * OpenTelemetry, started by `server.ts` before it loads the app, only when the OTEL_* variables
 * ask for traces (`config.tracing.enabled`): the modules are imported here, on demand, so a server
 * without tracing never loads them (the bundle leaves them outside, see build/bundle.ts).
 *
 * - NodeSDK, configured by the standard variables (exporter, OTLP endpoint and protocol, sampler,
 *   resource), with the W3C `traceparent` propagator: an incoming `traceparent` is continued.
 * - http instrumentation: the server span of each request (named `METHOD route`) and a client span
 *   per outgoing call (webhook deliveries), which carries `traceparent` on to the receiver.
 * - ioredis instrumentation: Redis commands (when ioredis is loaded as its own module: `pnpm dev`;
 *   the bundled server inlines it, so its commands appear only through the requests they serve).
 * - @fastify/otel, registered as a plugin by the app (the first plugin): a span per request named
 *   `METHOD route operationId` with the attributes `http.route`, `operation.id` and `request.id`;
 *   its context is the one every hook and handler of the request runs in. The answer carries
 *   `traceresponse: 00-<trace id>-<span id>-<flags>` (the request span), which browsers may read.
 * - Query spans (`db.query.text`) come from the server's own query hook (db/connect.ts), so the
 *   embedded PGlite gets them too; a delivery attempt is a span (modules/webhooks/deliver.ts).
 * - Log lines written inside a span carry `trace_id` and `span_id` (pino's mixin, app.ts).
 */
export async function startTracing(config: Config): Promise<{ plugin: FastifyPluginAsync; shutdown: () => Promise<void> }> {
  const [{ NodeSDK }, api, { HttpInstrumentation }, { IORedisInstrumentation }, { FastifyOtelInstrumentation }] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/api'),
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-ioredis'),
    import('@fastify/otel'),
  ]);
  const { trace, context, SpanKind, SpanStatusCode } = api;
  const fastifyOtel = new FastifyOtelInstrumentation({
    // One span per request (and its handler): a span per lifecycle hook would cost more than the request.
    instrumentHooks: false,
    requestHook: (span, req) => {
      const route = req.routeOptions.url ?? 'unmatched';
      const operationId = (req.routeOptions.schema as { operationId?: string } | undefined)?.operationId;
      span.updateName(operationId ? `${req.method} ${route} ${operationId}` : `${req.method} ${route}`);
      span.setAttributes(Object.assign({ 'request.id': req.id }, operationId ? { 'operation.id': operationId } : {}));
    },
  });
  const sdk = new NodeSDK({
    serviceName: config.tracing.serviceName,
    instrumentations: [new HttpInstrumentation(), new IORedisInstrumentation(), fastifyOtel],
  });
  sdk.start();

  const tracer = trace.getTracer('transport-ops-api');
  const now = () => performance.timeOrigin + performance.now();
  installTracer({
    query(text, durationMs, error) {
      const parent = context.active();
      if (!trace.getSpan(parent)) return; // a query outside any request or delivery: no trace of its own
      const end = now();
      // Named by the statement's first word (after the comments some queries start with).
      const statement = text.replace(/^\s*(\/\*[\s\S]*?\*\/\s*)*/, '');
      const span = tracer.startSpan(
        `db ${statement.slice(0, statement.search(/\s|$/)).toLowerCase()}`,
        { kind: SpanKind.CLIENT, startTime: end - durationMs, attributes: { 'db.system.name': 'postgresql', 'db.query.text': text } },
        parent,
      );
      if (error) span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      span.end(end);
    },
    span(name, attributes, work) {
      return tracer.startActiveSpan(name, { attributes }, async (span) => {
        try {
          return await work();
        } catch (error) {
          span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
          throw error;
        } finally {
          span.end();
        }
      });
    },
    logFields(): Record<string, string> {
      const span = trace.getSpan(context.active());
      if (!span) return {};
      const { traceId, spanId } = span.spanContext();
      return { trace_id: traceId, span_id: spanId };
    },
  });

  const plugin = fp(async (app: FastifyInstance) => {
    await app.register(fastifyOtel.plugin());
    app.addHook('onRequest', (_req, reply, done) => {
      const span = trace.getSpan(context.active());
      if (span) {
        const { traceId, spanId, traceFlags } = span.spanContext();
        reply.header(TRACE_RESPONSE_HEADER, `00-${traceId}-${spanId}-0${traceFlags & 1}`);
      }
      done();
    });
  });
  return {
    plugin,
    shutdown: async () => {
      installTracer(null);
      await sdk.shutdown();
    },
  };
}
