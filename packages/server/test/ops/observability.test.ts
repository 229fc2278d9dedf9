import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiServer, startApi, until } from './processes.js';

/** A span as OTLP/HTTP JSON carries it (ids in hex). */
interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: { stringValue?: string; intValue?: number | string } }[];
}
const attribute = (span: Span, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value?.stringValue ?? (value?.intValue === undefined ? undefined : Number(value.intValue));
};

/** A local OTLP/HTTP receiver (JSON encoding): keeps every span it is sent. */
function otlpReceiver(): Promise<{ url: string; spans: Span[]; server: Server }> {
  const spans: Span[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const doc = JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: Span[] }[] }[] };
        for (const r of doc.resourceSpans) for (const s of r.scopeSpans) spans.push(...s.spans);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, server })),
  );
}

describe('traces and logs of the built server (OpenTelemetry to a local OTLP/HTTP JSON receiver)', () => {
  let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
  let api: ApiServer;
  const lines: Record<string, unknown>[] = [];

  beforeAll(async () => {
    receiver = await otlpReceiver();
    api = await startApi(
      {
        LOG_LEVEL: 'info',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
        OTEL_METRICS_EXPORTER: 'none',
        OTEL_LOGS_EXPORTER: 'none',
      },
      {
        stdout: (line) => {
          try {
            lines.push(JSON.parse(line));
          } catch {
            lines.push({ notJson: line });
          }
        },
      },
    );
  }, 300_000);

  afterAll(async () => {
    await api?.stop();
    receiver?.server.close();
  });

  it('continues the caller traceparent: the request span by route and operationId, its query spans, traceresponse and the log lines share the trace id', async () => {
    const token = await api.login('agent');
    const traceId = randomBytes(16).toString('hex');
    const res = await api.request('/trade/transports?limit=5', {
      headers: { authorization: `Bearer ${token}`, traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
    });
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-request-id')!;
    const [version, echoedTrace, echoedSpan, flags] = res.headers.get('traceresponse')!.split('-');
    expect([version, echoedTrace, flags]).toEqual(['00', traceId, '01']);

    const ofTrace = () => receiver.spans.filter((s) => s.traceId === traceId);
    await until('the request span and its queries exported', async () => ofTrace().some((s) => s.spanId === echoedSpan), 60);
    const request = ofTrace().find((s) => s.spanId === echoedSpan)!;
    expect(request.name).toBe('GET /trade/transports listTransports');
    expect(attribute(request, 'http.route')).toBe('/trade/transports');
    expect(attribute(request, 'operation.id')).toBe('listTransports');
    expect(attribute(request, 'request.id')).toBe(requestId);
    expect(attribute(request, 'http.response.status_code')).toBe(200);
    // Above it, the http server span, named by method and route.
    const server = ofTrace().find((s) => s.spanId === request.parentSpanId)!;
    expect(server.name).toBe('GET /trade/transports');

    // Below it (through the handler span), the page's queries.
    await until('query spans exported', async () => ofTrace().some((s) => s.name === 'db select'), 30);
    const byId = new Map(ofTrace().map((s) => [s.spanId, s]));
    const under = (s: Span, ancestor: string): boolean =>
      s.parentSpanId === ancestor ||
      (s.parentSpanId !== undefined && byId.has(s.parentSpanId) && under(byId.get(s.parentSpanId)!, ancestor));
    const queries = ofTrace().filter((s) => s.name.startsWith('db '));
    expect(queries.length).toBeGreaterThanOrEqual(1);
    for (const q of queries) expect(under(q, request.spanId)).toBe(true);
    expect(queries.some((q) => String(attribute(q, 'db.query.text')).includes('"transports"'))).toBe(true);

    // The log lines of the request carry its trace id. They reach this process through the child's
    // stdout, which may deliver 'request completed' after the answer itself: wait for it.
    const logged = () => lines.filter((l) => l.reqId === requestId);
    await until('the request completed log line', async () => logged().some((l) => l.msg === 'request completed'), 30);
    expect(logged().map((l) => l.msg)).toEqual(expect.arrayContaining(['incoming request', 'request completed']));
    for (const line of logged()) expect(line.trace_id).toBe(traceId);
  });

  it('tells a refused browser origin in the answer and in one warn line naming the origin and the setting', async () => {
    const res = await api.request('/trade/transports', {
      method: 'OPTIONS',
      headers: { origin: 'https://other.example', 'access-control-request-method': 'GET' },
    });
    expect(res.status).toBe(403);
    expect(res.body.errors).toEqual({ code: 'CORS_ORIGIN_REFUSED', origin: 'https://other.example', setting: 'CORS_ORIGINS' });
    const requestId = res.headers.get('x-request-id');
    await until('the warn line written', async () => lines.some((l) => l.reqId === requestId && l.level === 40), 30);
    expect(lines.filter((l) => l.reqId === requestId && l.level === 40)).toEqual([
      expect.objectContaining({
        origin: 'https://other.example',
        method: 'OPTIONS',
        url: '/trade/transports',
        setting: 'CORS_ORIGINS',
        msg: 'CORS: origin https://other.example refused; add it to CORS_ORIGINS to let its pages call the API',
        trace_id: res.headers.get('traceresponse')!.split('-')[1],
      }),
    ]);
  });

  it('starts a trace of its own for a request without traceparent, and every line the process wrote is JSON', async () => {
    const res = await api.request('/health');
    const [, traceId, spanId] = res.headers.get('traceresponse')!.split('-');
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    await until('the probe span exported', async () => receiver.spans.some((s) => s.spanId === spanId), 60);
    expect(receiver.spans.find((s) => s.spanId === spanId)).toMatchObject({ traceId, name: 'GET /health getHealth' });
    const requestId = res.headers.get('x-request-id');
    const completed = () => lines.find((l) => l.reqId === requestId && l.msg === 'request completed');
    await until('the request completed log line', async () => completed() !== undefined, 30);
    expect(completed()).toMatchObject({ trace_id: traceId });
    // The first line (tracing on) and the start-up's lines are pino's JSON like the rest.
    expect(lines.filter((l) => 'notJson' in l)).toEqual([]);
    expect(lines[0]).toMatchObject({ level: 30, msg: expect.stringContaining('tracing on') });
    expect(lines.some((l) => String(l.msg).startsWith('Transport Operations API ready on'))).toBe(true);
  });
});
