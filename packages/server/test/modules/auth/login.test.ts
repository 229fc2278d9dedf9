import { describe, expect, it } from 'vitest';
import { DEMO_PASSWORD, useTestApp } from '../../support/app.js';

const t = useTestApp();

describe('POST /auth/login', () => {
  it('returns an access token, a refresh token and the user for the right password', async () => {
    const res = await t.call('login', { body: { username: 'agent', password: DEMO_PASSWORD } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.result.token_type).toBe('Bearer');
    expect(res.body.result.expires_in).toBe(3600);
    expect(res.body.result.user.username).toBe('agent');
    expect(res.body.result.refresh_token).not.toBe(res.body.result.access_token);
  });

  it('answers 401 with success false for a wrong password', async () => {
    const res = await t.call('login', { body: { username: 'agent', password: 'wrong-password' } });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ success: false, errors: ['username or password is incorrect'] });
  });
});
