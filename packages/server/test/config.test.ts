import { describe, expect, it } from 'vitest';
import { loadConfig, parseTrustProxy } from '../src/config.js';

describe('TRUST_PROXY', () => {
  it('is off by default: no client can choose its address with X-Forwarded-For', () => {
    expect(loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32) }).trustProxy).toBe(false);
    for (const off of [undefined, '', 'false', '0']) expect(parseTrustProxy(off)).toBe(false);
  });

  it('takes a hop count or a list of addresses and CIDR ranges', () => {
    expect(parseTrustProxy('2')).toBe(2);
    expect(parseTrustProxy('10.0.0.0/8, 192.168.1.10,::1,fd00::/8')).toEqual(['10.0.0.0/8', '192.168.1.10', '::1', 'fd00::/8']);
  });

  it('refuses `true` and anything that is not an address, naming the entry', () => {
    expect(() => parseTrustProxy('true')).toThrow('TRUST_PROXY: "true" is not a hop count, an IP address or a CIDR range');
    expect(() => parseTrustProxy('10.0.0.0/33')).toThrow('"10.0.0.0/33"');
    expect(() => parseTrustProxy('proxy.example')).toThrow('"proxy.example"');
  });
});
