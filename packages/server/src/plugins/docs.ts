import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { contractPath } from '../contract.js';

/** `/openapi.json` serves the bundled contract; `/docs` the Redoc page built by `pnpm docs`. */
export default fp(async function docs(app: FastifyInstance) {
  const json = readFileSync(contractPath);
  const docsPage = join(dirname(contractPath), 'docs.html');
  app.get('/openapi.json', async (_req, reply) => reply.type('application/json').send(json));
  app.get('/docs', async (_req, reply) => {
    if (!existsSync(docsPage)) {
      return reply.code(404).send({
        success: false,
        message: 'The documentation page is not built: run `pnpm docs`',
        result: null,
        errors: ['docs not built'],
        except: null,
      });
    }
    return reply.type('text/html; charset=utf-8').send(readFileSync(docsPage));
  });
});
