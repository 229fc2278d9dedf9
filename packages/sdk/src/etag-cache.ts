type Send = (request: Request) => Promise<Response>;
interface Entry {
  etag: string;
  status: number;
  headers: [string, string][];
  body: ArrayBuffer;
}

/**
 * Remembers the last answer of each GET that came with an `ETag` (per URL and credentials, the
 * `max` most recent), asks again with `If-None-Match`, and answers a 304 with the remembered
 * answer: an unchanged resource costs the server no body, no serialization and no rate-limit
 * quota. A request that sets its own `If-None-Match` gets the server's 304 as it is.
 */
export function etagCache(send: Send, max = 200): Send & { clear(): void } {
  const entries = new Map<string, Entry>();
  const cached = async (request: Request): Promise<Response> => {
    if (request.method !== 'GET') return send(request);
    const key = `${request.headers.get('authorization') ?? ''} ${request.url}`;
    const hit = request.headers.has('if-none-match') ? undefined : entries.get(key);
    if (hit) request.headers.set('if-none-match', hit.etag);
    const response = await send(request);
    if (hit && response.status === 304) {
      entries.delete(key);
      entries.set(key, hit);
      return new Response(hit.body.slice(0), { status: hit.status, headers: hit.headers });
    }
    const etag = response.headers.get('etag');
    if (response.status === 200 && etag) {
      const entry = { etag, status: 200, headers: [...response.headers], body: await response.clone().arrayBuffer() };
      entries.delete(key);
      entries.set(key, entry);
      if (entries.size > max) entries.delete(entries.keys().next().value as string);
    } else if (response.status !== 304) entries.delete(key);
    return response;
  };
  return Object.assign(cached, { clear: () => entries.clear() });
}
