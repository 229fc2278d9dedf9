import { describe, expect, it } from 'vitest';
import { isDependencyOutage } from '../../src/lib/outage.js';

const withCode = (code: string, message = 'failed') => Object.assign(new Error(message), { code });

describe('isDependencyOutage', () => {
  const outages: [string, unknown][] = [
    ['connection refused', withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')],
    ['connection reset', withCode('ECONNRESET')],
    ['a crashed server ("Connection terminated unexpectedly")', new Error('Connection terminated unexpectedly')],
    ['the pool gave up waiting for a connection', new Error('timeout exceeded when trying to connect')],
    ['no reply from a frozen server', new Error('Query read timeout')],
    ['statement_timeout (57014)', withCode('57014', 'canceling statement due to statement timeout')],
    ['the server is shutting down (57P01)', withCode('57P01', 'terminating connection due to administrator command')],
    ['the server is starting up (57P03)', withCode('57P03', 'the database system is starting up')],
    ['too many connections (53300)', withCode('53300')],
    ['a connection exception (08006)', withCode('08006')],
    ['Redis without a connection', new Error("Stream isn't writeable and enableOfflineQueue options is false")],
    ['an outage wrapped as the cause', new Error('migration failed', { cause: withCode('ECONNREFUSED') })],
    ['an outage inside an AggregateError', new AggregateError([withCode('ECONNREFUSED')], 'connect failed')],
  ];
  it.each(outages)('is true for %s', (_, error) => {
    expect(isDependencyOutage(error)).toBe(true);
  });

  const notOutages: [string, unknown][] = [
    ['a unique violation (23505)', withCode('23505', 'duplicate key value violates unique constraint')],
    ['a syntax error in SQL (42601)', withCode('42601')],
    ['a programming error', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['a Fastify error code', withCode('FST_ERR_CTP_EMPTY_JSON_BODY')],
    ['not an error at all', 'ECONNREFUSED'],
    ['null', null],
  ];
  it.each(notOutages)('is false for %s', (_, error) => {
    expect(isDependencyOutage(error)).toBe(false);
  });
});
