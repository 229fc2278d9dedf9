import { beforeAll, describe, expect, it } from 'vitest';
import type { OperationId } from '../../src/http/handlers.js';
import { useTestApp } from '../support/app.js';
import { deref, operations, responseValidator } from '../support/contract.js';
import { createTransport, loadRefs, type Refs } from '../modules/transports/fixtures.js';

// The contract's `cursor` example of each list is one that list accepts (each list hands out its
// own cursors and refuses another list's): a tool or a reader trying the example gets a page.

const t = useTestApp();
let refs: Refs;
beforeAll(async () => {
  refs = await loadRefs(t);
});

const listsWithCursor = operations
  .map((o) => ({
    o,
    cursor: ((o.operation.parameters ?? []) as Array<Record<string, any>>).map((p) => deref(p)).find((p) => p.name === 'cursor'),
  }))
  .filter(({ cursor }) => cursor !== undefined)
  .map(({ o, cursor }) => ({
    operationId: o.operationId,
    example: cursor!.example as string | undefined,
    pathParams: o.path.includes('{id}'),
  }));

async function page(operationId: OperationId, cursor: string, transportId: number) {
  const admin = operationId === 'listAuditLog' || operationId.startsWith('listAdmin') || operationId === 'listEvents';
  return t.call(operationId, {
    token: await t.token(admin ? 'admin' : 'agent'),
    query: { cursor, limit: 5 },
    ...(operationId === 'getTransportTimeline' ? { params: { id: transportId } } : {}),
  } as never);
}

describe('cursor examples', () => {
  it('cover the lists that page by cursor, one example each', () => {
    expect(listsWithCursor.map((l) => l.operationId).sort()).toEqual(
      [
        'getTransportTimeline',
        'listAdminComplaints',
        'listAdminTransports',
        'listAuditLog',
        'listComplaints',
        'listEvents',
        'listForumTopics',
        'listTransports',
      ].sort(),
    );
    expect(listsWithCursor.filter((l) => !l.example).map((l) => l.operationId)).toEqual([]);
  });

  it('are accepted by their own list (a page valid against the contract) and refused by a list of another kind', async () => {
    const transport = await createTransport(t, refs, 'agent');
    for (const { operationId, example } of listsWithCursor) {
      const res = await page(operationId, example!, transport.id);
      expect(res.status, `${operationId}: ${JSON.stringify(res.body)}`).toBe(200);
      const validate = responseValidator(operationId, 200)!;
      expect(validate(res.body), `${operationId}: ${JSON.stringify(validate.errors)}`).toBe(true);
      expect(Array.isArray((res.body as { result: { data: unknown[] } }).result.data)).toBe(true);
    }
    // The examples differ where the lists' cursors differ: the transport example on the complaint
    // and forum lists, the complaint example on the transport list, are refused naming the cursor.
    const example = (id: string) => listsWithCursor.find((l) => l.operationId === id)!.example!;
    for (const [operationId, foreign] of [
      ['listComplaints', example('listTransports')],
      ['listForumTopics', example('listTransports')],
      ['listTransports', example('listComplaints')],
      ['listEvents', example('listAuditLog')],
    ] as const) {
      const res = await page(operationId, foreign, transport.id);
      expect(res.status, operationId).toBe(400);
      expect(JSON.stringify((res.body as { errors: unknown }).errors)).toContain('querystring/cursor');
    }
  });
});
