import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';

const t = useTestApp();

/** Sends raw bytes to the listening app and returns the raw answer (the connection is closed by the server). */
async function raw(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.write(request);
  });
}

const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));

describe('errors raised before a route is reached answer in the envelope', () => {
  it('431 for headers over 16 KB, 400 for a malformed request line (from the HTTP parser, on the socket)', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as { port: number };
    const big = await raw(port, `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(big.startsWith('HTTP/1.1 431')).toBe(true);
    expect(bodyOf(big)).toEqual({
      success: false,
      message: 'Request header fields too large',
      result: null,
      errors: ['The request line and headers exceed 16 KB'],
      except: null,
    });
    const broken = await raw(port, 'NOT A REQUEST\r\n\r\n');
    expect(broken.startsWith('HTTP/1.1 400')).toBe(true);
    expect(bodyOf(broken)).toMatchObject({ success: false, message: 'Bad request', result: null });
  });

  it('414 for a path segment over 100 characters', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/admin/users/${'1'.repeat(150)}` });
    expect(res.statusCode).toBe(414);
    expect(res.json()).toEqual({
      success: false,
      message: 'URI too long',
      result: null,
      errors: ['A path segment exceeds 100 characters'],
      except: null,
    });
  });

  it('400 for a malformed URL', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/admin/users/%E0%A4%A' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, result: null, errors: ['The URL is malformed'] });
  });
});
