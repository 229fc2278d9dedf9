import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { databaseFaults } from '../../support/faults.js';
import { createTransport, loadRefs, type Refs } from '../../modules/transports/fixtures.js';

/*
 * A conditional write locks the resource's row from its check to its COMMIT (the contract's
 * introduction, "Conditional requests", "One step"): a write of the same row without `If-Match`
 * cannot slip between the check and the write; it waits, then runs on what the conditional write
 * committed. The conditional write is held, its row locked, right after its precondition read.
 */

const faults = databaseFaults();
const t = useTestApp({}, { wrapDialect: faults.wrapDialect });
let refs: Refs;
beforeAll(async () => {
  refs = await loadRefs(t);
});

const loadingPoint = async (id: number) =>
  (await t.db.selectFrom('transports').select('loading_point').where('id', '=', id).executeTakeFirstOrThrow()).loading_point;
const lockingRead = (text: string) => /for update of "t"/.test(text);
const lockingExistence = (text: string) => /^select id from "transports" where id = \$1 for update$/.test(text.trim());

describe('the row a conditional write locks', () => {
  it.each([
    ['its current ETag', lockingRead, true],
    ['*', lockingExistence, false],
  ] as const)('a PATCH without If-Match waits for a PATCH with If-Match %s, then applies over it', async (_, held, withTag) => {
    const token = await t.token('agent');
    const { id } = await createTransport(t, refs, 'agent');
    const etag = (await t.call('getTransportById', { token, params: { id } })).headers.etag as string;
    const hold = faults.holdAfter(held);
    const conditional = t.call('updateTransport', {
      token,
      params: { id },
      body: { loadingPoint: 'Conditional' },
      headers: { 'if-match': withTag ? etag : '*' },
    });
    await hold.reached;
    let plainDone = false;
    const plain = t.call('updateTransport', { token, params: { id }, body: { loadingPoint: 'Plain' } }).then((res) => {
      plainDone = true;
      return res;
    });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(plainDone, 'the write without If-Match waited for the locked row').toBe(false);
    hold.release();
    const [first, second] = await Promise.all([conditional, plain]);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.result.loadingPoint).toBe('Conditional');
    expect(second.status).toBe(200);
    expect(second.body.result.loadingPoint).toBe('Plain');
    expect(await loadingPoint(id)).toBe('Plain');
    expect(faults.pending()).toBe(0);
  });
});
