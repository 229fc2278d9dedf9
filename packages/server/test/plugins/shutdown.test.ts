import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD, useTestApp } from '../support/app.js';
import { responseValidator } from '../support/contract.js';

/*
 * While the server drains (SIGTERM: app.close()), a request already in flight runs to its end and a
 * request that arrives on an open keep-alive connection is answered with the contract's 503
 * envelope, Retry-After and `Connection: close`, not Fastify's own body.
 */

const t = useTestApp({ shutdownGraceMs: 5000 });
let port: number;
beforeAll(async () => {
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.app.server.address() as AddressInfo).port;
});

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Splits what a socket received into HTTP/1.1 responses (each with a Content-Length). */
function parseResponses(data: string): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = data;
  while (rest.startsWith('HTTP/1.1 ')) {
    const end = rest.indexOf('\r\n\r\n');
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const headers = Object.fromEntries(
      lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
    );
    const length = Number(headers['content-length']);
    const body = Buffer.from(rest.slice(end + 4))
      .subarray(0, length)
      .toString();
    responses.push({ status: Number(statusLine!.split(' ')[1]), headers, body });
    rest = Buffer.from(rest.slice(end + 4))
      .subarray(length)
      .toString();
  }
  return responses;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('shutdown', () => {
  it('finishes the request in flight and answers the next one on the same connection with the 503 envelope and Retry-After', async () => {
    const token = await t.token('agent');
    const socket: Socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString();
    });
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));

    // A login whose body is still arriving when the shutdown starts.
    const body = JSON.stringify({ username: 'agent', password: DEMO_PASSWORD });
    socket.write(
      `POST /auth/login HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
    );
    await sleep(300);
    const closing = t.app.close();
    await sleep(300);
    // The rest of the login, then a second request pipelined on the same connection.
    socket.write(`${body.slice(10)}GET /trade/transports HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\n\r\n`);
    await ended;
    await closing;

    const [login, next, ...more] = parseResponses(received);
    expect(more).toEqual([]);
    expect(login!.status).toBe(200);
    expect(JSON.parse(login!.body)).toMatchObject({ success: true, result: { user: { username: 'agent' } } });

    expect(next!.status).toBe(503);
    expect(next!.headers['retry-after']).toBe('5');
    expect(next!.headers.connection).toBe('close');
    expect(next!.headers['content-type']).toMatch(/^application\/json/);
    const envelope = JSON.parse(next!.body);
    expect(envelope).toEqual({
      success: false,
      message: 'Service is shutting down',
      result: null,
      errors: { code: 'SERVICE_UNAVAILABLE', retryAfterSeconds: 5 },
      except: null,
    });
    const validate = responseValidator('listTransports', 503)!;
    expect(validate(envelope), JSON.stringify(validate.errors)).toBe(true);
  });
});
