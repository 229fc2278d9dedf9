import { beforeAll, describe, expect, it } from 'vitest';
import { shareResult, sharedBody } from '../../src/lib/shared-results.js';
import { useTestApp } from '../support/app.js';
import { createTransport, loadRefs, type Refs } from '../modules/transports/fixtures.js';

describe('sharedBody', () => {
  it('leaves results that are not shared to the usual serializer', () => {
    let calls = 0;
    const body = sharedBody({ total: 1 }, 'getTransportStats', 'm', 200, () => {
      calls += 1;
      return 'x';
    });
    expect(body).toBeUndefined();
    expect(calls).toBe(0);
    expect(sharedBody(7, 'getTransportStats', 'm', 200, () => 'x')).toBeUndefined();
  });

  it('serializes a shared result once per operation, message and status', () => {
    const result = shareResult({ total: 1 });
    const made: string[] = [];
    const serialize = (text: string) => () => {
      made.push(text);
      return text;
    };
    expect(sharedBody(result, 'getTransportStats', 'm', 200, serialize('first'))).toBe('first');
    expect(sharedBody(result, 'getTransportStats', 'm', 200, serialize('again'))).toBe('first');
    expect(sharedBody(result, 'getTransportStats', 'other message', 200, serialize('second'))).toBe('second');
    expect(sharedBody(result, 'getComplaintStats', 'other message', 200, serialize('third'))).toBe('third');
    expect(made).toEqual(['first', 'second', 'third']);
  });
});

describe('a cached statistics answer through HTTP', () => {
  const t = useTestApp();
  let refs: Refs;
  beforeAll(async () => {
    refs = await loadRefs(t);
  });

  it('answers the same bytes while cached, as JSON the contract accepts, and a new answer after a write', async () => {
    const token = await t.token('supervisor');
    const first = await t.call('getTransportStats', { token, query: { days: 7 } });
    const second = await t.call('getTransportStats', { token, query: { days: 7 } });
    expect(first.status).toBe(200);
    expect(second.raw.body).toBe(first.raw.body);
    expect(second.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(second.body).toEqual(first.body);
    // Fields the contract does not declare never leave the server: the body is the schema's serialization.
    expect(Object.keys(second.body).sort()).toEqual(['errors', 'except', 'message', 'result', 'success']);

    await createTransport(t, refs, 'agent2');
    const third = await t.call('getTransportStats', { token, query: { days: 7 } });
    expect(third.body.result.total).toBe(first.body.result.total + 1);
    expect(third.raw.body).not.toBe(first.raw.body);
  });
});
