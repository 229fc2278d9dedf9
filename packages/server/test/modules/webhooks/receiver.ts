import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/**
 * A real webhook receiver on a free loopback port. `answer` picks the status of each request
 * (200 by default); every request is kept, refused ones included.
 */
export async function startReceiver() {
  const received: Received[] = [];
  let answer: (r: Received, index: number) => number = () => 200;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const r = { headers: req.headers, body, at: Date.now() };
      received.push(r);
      res.statusCode = answer(r, received.length - 1);
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    answerWith(f: (r: Received, index: number) => number) {
      answer = f;
    },
    /** The requests carrying `eventId`, in arrival order. */
    of(eventId: string) {
      return received.filter((r) => r.headers['webhook-id'] === eventId);
    },
    /**
     * Waits until `predicate` holds (polling every 20 ms), failing after `ms`: a deadline for a
     * delivery that never comes, well past what a busy machine takes, below the test's timeout.
     */
    async until(predicate: () => boolean, ms = 90_000) {
      const deadline = Date.now() + ms;
      while (!predicate()) {
        if (Date.now() > deadline) throw new Error(`receiver: condition not met within ${ms} ms (${received.length} requests)`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
