import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { Negotiator } from '@fastify/accept-negotiator';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { contractPath } from '../contract.js';

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);
type Encoding = 'br' | 'gzip' | 'identity';
const negotiator = new Negotiator<Encoding>({ supportedValues: ['br', 'gzip', 'identity'] });

/**
 * A file that does not change while the process runs, read and compressed once (on its first
 * request), served with an ETag (304 when it matches) and in the encoding the client prefers.
 */
function asset(path: string, type: string) {
  let loaded: Promise<{ etag: string; bodies: Record<Encoding, Buffer> }> | undefined;
  const load = async () => {
    const identity = readFileSync(path);
    const [br, gz] = await Promise.all([
      brotli(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: identity.length } }),
      gzipAsync(identity, { level: 6 }),
    ]);
    return { etag: `"${createHash('sha256').update(identity).digest('base64url').slice(0, 27)}"`, bodies: { identity, br, gzip: gz } };
  };
  return async (req: FastifyRequest, reply: FastifyReply) => {
    loaded ??= load();
    const { etag, bodies } = await loaded;
    reply.header('etag', etag).header('vary', 'accept-encoding').header('cache-control', 'public, max-age=300, must-revalidate');
    if (req.headers['if-none-match'] === etag) return reply.code(304).send();
    const encoding = negotiator.negotiate(String(req.headers['accept-encoding'] ?? 'identity')) ?? 'identity';
    if (encoding !== 'identity') reply.header('content-encoding', encoding);
    return reply.type(type).send(bodies[encoding]);
  };
}

/**
 * `/openapi.json` and `/openapi.yaml` serve the bundled contract, `/docs` the Redoc page built by
 * `pnpm docs` (part of `pnpm build`): from memory, compressed once, with ETags. In production each
 * is the variant without the demo accounts' credentials (`pnpm gen` and `pnpm docs` write both).
 */
export default fp(async function docs(app: FastifyInstance) {
  const production = app.config.nodeEnv === 'production';
  const resolve = createRequire(import.meta.url).resolve;
  const jsonPath = production ? resolve('@transport-ops/contract/openapi.production.json') : contractPath;
  const yamlPath = resolve(production ? '@transport-ops/contract/openapi.production.yaml' : '@transport-ops/contract/openapi.yaml');
  const docsPage = join(dirname(contractPath), production ? 'docs.production.html' : 'docs.html');
  const options = { compress: false as const }; // compressed here, once
  app.get('/openapi.json', options, asset(jsonPath, 'application/json; charset=utf-8'));
  app.get('/openapi.yaml', options, asset(yamlPath, 'application/yaml; charset=utf-8'));
  const page = asset(docsPage, 'text/html; charset=utf-8');
  app.get('/docs', options, async (req, reply) => {
    if (!existsSync(docsPage)) {
      return reply.code(404).send({
        success: false,
        message: 'The documentation page is not built: run `pnpm docs`',
        result: null,
        errors: ['docs not built'],
        except: null,
      });
    }
    return page(req, reply);
  });
});
