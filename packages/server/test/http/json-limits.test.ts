import { performance } from 'node:perf_hooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { JSON_LIMITS, jsonStructureBreach } from '../../src/http/json-structure.js';
import { DEMO_PASSWORD, errorMessages, useTestApp } from '../support/app.js';
import { expectInvalid } from '../support/expect.js';

const t = useTestApp();
let agent: string;
beforeAll(async () => {
  agent = await t.token('agent');
});

const json = { 'content-type': 'application/json' };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Latencies of GET /health, one after the other, for as long as `busy` is pending. */
async function healthWhile(busy: Promise<unknown>): Promise<number[]> {
  let done = false;
  void busy.finally(() => {
    done = true;
  });
  const latencies: number[] = [];
  while (!done) {
    // Through a timer: an injected request alone never leaves the microtask queue, and would
    // starve the one it is meant to run beside. A blocked event loop delays the timer too.
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 1));
    const res = await t.app.inject({ method: 'GET', url: '/health' });
    latencies.push(performance.now() - started);
    expect(res.json()).toMatchObject({ success: true });
  }
  return latencies;
}

async function healthBaseline(): Promise<number> {
  const latencies: number[] = [];
  for (let i = 0; i < 7; i++) {
    const started = performance.now();
    await t.app.inject({ method: 'GET', url: '/health' });
    latencies.push(performance.now() - started);
  }
  return median(latencies);
}

describe('bodies that would make validation work for seconds get a small answer at once', () => {
  it('answers a 9.5 MB login with 800,000 unknown fields in under 4 KB, and /health stays quick meanwhile', async () => {
    const keys = Array.from({ length: 800_000 }, (_, i) => `"k${i}":0`).join(',');
    const payload = `{"username":"agent","password":"${DEMO_PASSWORD}",${keys}}`;
    expect(payload.length).toBeGreaterThan(9_000_000);
    expect(payload.length).toBeLessThan(10 * 1024 * 1024);
    const baseline = await healthBaseline();

    const started = performance.now();
    const login = t.call('login', { payload, headers: json });
    const health = await healthWhile(login);
    const res = await login;
    const elapsed = performance.now() - started;

    expectInvalid(res, 'body has more than 100 fields (at most 100 per object in a JSON body)');
    expect(res.raw.rawPayload.length).toBeLessThan(4096);
    expect(errorMessages(res.body)).toHaveLength(1);
    // Generous bounds (reading 9.5 MB costs ~100 ms of CPU, and the machine may be shared): the
    // same body took 2.6-8 s on an idle machine before the limits, and /health waited as long.
    expect(elapsed).toBeLessThan(5000);
    expect(Math.max(...health)).toBeLessThan(Math.max(2500, 50 * baseline));
    console.info(
      `800k-field login: answered in ${elapsed.toFixed(0)} ms, ${res.raw.rawPayload.length} B; /health baseline ${baseline.toFixed(1)} ms, worst meanwhile ${Math.max(...health).toFixed(1)} ms over ${health.length} calls`,
    );
  });

  it('answers 1.3 million empty arrays in tagIds (authenticated) in under 4 KB, naming the field, and /health stays quick', async () => {
    const payload = `{"title":"Amplified topic","content":"Many tags","tagIds":[${Array.from({ length: 1_300_000 }, () => '[]').join(',')}]}`;
    const baseline = await healthBaseline();
    const started = performance.now();
    const create = t.call('createForumTopic', { token: agent, payload, headers: json });
    const health = await healthWhile(create);
    const res = await create;
    const elapsed = performance.now() - started;

    expectInvalid(res, 'body/tagIds has more than 1000 items (at most 1000 per array in a JSON body)');
    expect(res.raw.rawPayload.length).toBeLessThan(4096);
    expect(elapsed).toBeLessThan(5000);
    expect(Math.max(...health)).toBeLessThan(Math.max(2500, 50 * baseline));
    console.info(
      `1.3M-array topic: answered in ${elapsed.toFixed(0)} ms, ${res.raw.rawPayload.length} B; /health baseline ${baseline.toFixed(1)} ms, worst meanwhile ${Math.max(...health).toFixed(1)} ms over ${health.length} calls`,
    );
    const topics = await t.db.selectFrom('forum_topics').select('id').where('title', '=', 'Amplified topic').execute();
    expect(topics).toEqual([]);
  });
});

describe('JSON structure limits', () => {
  it('accepts 100 fields in an object (validation then names them), refuses 101 before parsing', async () => {
    const fields = (n: number) =>
      Object.fromEntries([['username', 'agent'], ['password', DEMO_PASSWORD], ...Array.from({ length: n - 2 }, (_, i) => [`f${i}`, i])]);
    const hundred = await t.call('login', { payload: fields(100) });
    expectInvalid(hundred, 'body/f0 is not an accepted field');
    const more = await t.call('login', { payload: fields(101) });
    expectInvalid(more, 'body has more than 100 fields (at most 100 per object in a JSON body)');
  });

  it('leaves an array of 1000 items to the schema (maxItems), refuses 1001 before parsing', async () => {
    const body = (n: number) => ({ title: 'Many tags here', content: 'x', tagIds: Array.from({ length: n }, (_, i) => i + 1) });
    const thousand = await t.call('createForumTopic', { token: agent, payload: body(1000) });
    expectInvalid(thousand, 'body/tagIds must NOT have more than 10 items');
    const more = await t.call('createForumTopic', { token: agent, payload: body(1001) });
    expectInvalid(more, 'body/tagIds has more than 1000 items (at most 1000 per array in a JSON body)');
  });

  it('refuses nesting deeper than 32 levels and more than 10,000 values in all', async () => {
    const deep = `{"username":${'['.repeat(32)}${']'.repeat(32)},"password":"x"}`;
    expectInvalid(
      await t.call('login', { payload: deep, headers: json }),
      'body nests objects and arrays deeper than 32 levels (at most 32 in a JSON body)',
    );
    const many = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`list${i}`, Array.from({ length: 1000 }, () => 0)]));
    expectInvalid(
      await t.call('login', { payload: many }),
      'body has more than 10000 values in all (a JSON body holds at most 10000 array items and object fields)',
    );
  });

  it('still refuses prototype poisoning and malformed JSON', async () => {
    const poisoned = await t.call('login', { payload: '{"username":"agent","password":"x","__proto__":{"admin":true}}', headers: json });
    expectInvalid(poisoned, 'body is not valid JSON');
    const malformed = await t.call('login', { payload: '{"username":"agent",]]]]', headers: json });
    expectInvalid(malformed, 'body is not valid JSON');
  });

  it.each([
    ['strings hide brackets and commas', `{"a":"${'[,'.repeat(5000)}"}`, null],
    ['escaped quotes do not end a string', `{"a":"\\"${',[{'.repeat(200)}"}`, null],
    [
      'an escaped backslash does end it',
      `{"a":"\\\\",${Array.from({ length: 100 }, (_, i) => `"k${i}":1`).join(',')}}`,
      'body has more than 100 fields (at most 100 per object in a JSON body)',
    ],
    [
      'the path names object keys and array indexes',
      `{"x":[1,{"y":[${'0,'.repeat(1000)}0]}]}`,
      'body/x/1/y has more than 1000 items (at most 1000 per array in a JSON body)',
    ],
    ['malformed text does not throw', ']]]}}{{[[,,,"', null],
  ])('scanner: %s', (_name, text, want) => {
    expect(jsonStructureBreach(text, JSON_LIMITS)).toBe(want);
  });
});

describe('validation reports at most 10 errors', () => {
  it('lists the first 10 errors and says how many more there were', async () => {
    const payload = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`extra${i}`, i]));
    const res = await t.call('login', { payload: { username: 'agent', password: DEMO_PASSWORD, ...payload } });
    expectInvalid(res, 'body/extra0 is not an accepted field', 'and 20 more errors (at most 10 are reported)');
    expect(errorMessages(res.body)).toHaveLength(11);
  });

  it('keeps at most 10 fields in the field map of complaint validation', async () => {
    const extra = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`extra${i}`, i]));
    const res = await t.call('createComplaint', { token: agent, payload: { transportId: 1, ...extra } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toMatchObject({ extra0: 'is not an accepted field' });
    expect(Object.keys(res.body.errors)).toHaveLength(10);
  });
});
