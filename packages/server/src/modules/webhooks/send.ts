import http from 'node:http';
import https from 'node:https';
import { Webhook } from 'standardwebhooks';
import { connectedAddressRefused, lookupPublic, refusedTarget } from './targets.js';

/** The outcome of one attempt: a 2xx status is a success; anything else is retried. */
export interface AttemptOutcome {
  ok: boolean;
  status: number | null;
  latencyMs: number;
  error: string | null;
}

export interface SendOptions {
  timeoutMs: number;
  allowPrivateTargets: boolean;
  requireHttps: boolean;
}

// Connections are kept open between deliveries to the same endpoint (a partner receives bursts).
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 50 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 50 }),
};
const publicAgents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 50, lookup: lookupPublic as never }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 50, lookup: lookupPublic as never }),
};

/** The three Standard Webhooks headers of one attempt, signed with the `whsec_` secret by the standardwebhooks package. */
export function signedHeaders(secret: string, eventId: string, body: string, at: Date): Record<string, string> {
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(eventId, at, body),
  };
}

/**
 * POSTs one signed event. The target is judged again by this worker's rules (modules/webhooks/
 * targets.ts): its scheme and written address before connecting, each resolved address in the
 * lookup, and the address the socket is connected to before anything is sent. A redirect is an
 * answer like any other non-2xx (never followed); the whole exchange, connection included, must
 * end within `timeoutMs`. The answer's body is read and discarded (at most the socket's buffers:
 * the connection is dropped rather than read further).
 */
export function sendEvent(url: string, secret: string, eventId: string, body: string, options: SendOptions): Promise<AttemptOutcome> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  const refused = refusedTarget(url, options);
  if (refused !== null) return Promise.resolve({ ok: false, status: null, error: `refused: url ${refused}`, latencyMs: 0 });
  return new Promise((resolve) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const done = (outcome: Omit<AttemptOutcome, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(Object.assign(outcome, { latencyMs: latency() }));
    };
    const target = new URL(url);
    const protocol = target.protocol as 'http:' | 'https:';
    const transport = protocol === 'https:' ? https : http;
    const agent = (options.allowPrivateTargets ? agents : publicAgents)[protocol];
    if (!agent) return done({ ok: false, status: null, error: `unsupported scheme ${target.protocol}` });
    const headers = {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'user-agent': 'transport-ops-webhooks/1',
      ...signedHeaders(secret, eventId, body, new Date()),
    };
    const request = transport.request(target, { method: 'POST', agent, headers }, (response) => {
      const status = response.statusCode ?? 0;
      response.resume();
      const ok = status >= 200 && status < 300;
      response.on('end', () => done({ ok, status, error: ok ? null : `HTTP ${status}` }));
      response.on('error', () => done({ ok, status, error: ok ? null : `HTTP ${status}` }));
    });
    request.on('socket', (socket) => {
      const judge = () => {
        const why = connectedAddressRefused(socket.remoteAddress, options);
        if (why === null) return;
        done({ ok: false, status: null, error: `refused: ${why}` });
        request.destroy();
      };
      // Registered before the request's own writes wait for the connection: this runs first.
      if (socket.connecting) socket.once('connect', judge);
      else judge();
    });
    timer = setTimeout(() => {
      done({ ok: false, status: null, error: `no answer within ${options.timeoutMs} ms` });
      request.destroy();
    }, options.timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => done({ ok: false, status: null, error: error.message.slice(0, 500) }));
    request.end(body);
  });
}
