import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { FOS, track, trackedTransport } from '../tracking/fixtures.js';
import { loadRefs, type Refs } from '../transports/fixtures.js';

const chromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
if (!chromium) console.warn('Tracking page browser test skipped: Chromium is not installed (Debian package `chromium`)');

// An app of its own, listening on a random port of this machine for the browser.
const t = useTestApp({ logLevel: 'error' });
let refs: Refs;
let origin: string;
beforeAll(async () => {
  refs = await loadRefs(t);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address() as { port: number };
  origin = `http://127.0.0.1:${address.port}`;
});

describe.skipIf(!chromium)('the tracking page in headless Chromium at a phone viewport', () => {
  it('shows the status, the ETA and the route drawn as SVG, with no request outside this machine', async () => {
    const id = await trackedTransport(t, refs, 'agent', ['START']);
    const points = track(new Date(Date.now() - 2 * 3600_000), 120, 60);
    const recorded = await t.call('recordTransportPositions', {
      token: await t.token('agent'),
      params: { id },
      body: { positions: points } as never,
    });
    expect(recorded.status).toBe(202);
    await t.db
      .insertInto('transport_milestones')
      .values({ transport_id: id, type: 'DEPARTED', occurred_at: points[0]!.recordedAt, created_by: refs.user('agent') })
      .execute();
    const link = await t.call('createTrackingLink', { token: await t.token('agent'), params: { id } });
    const { token } = link.body.result;
    const tracking = await t.call('getPublicTracking', { params: { token } });
    expect(tracking.body.result.eta).not.toBeNull();
    expect(tracking.body.result.destination).toEqual(FOS);

    const { default: puppeteer } = await import('puppeteer-core');
    const browser = await puppeteer.launch({
      executablePath: chromium,
      headless: true,
      args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
      timeout: 60_000,
    });
    try {
      const page = await browser.newPage();
      await page.setViewport({ width: 375, height: 740, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
      // Every request the page makes is recorded; any outside this server is refused.
      const requests: string[] = [];
      const consoleErrors: string[] = [];
      await page.setRequestInterception(true);
      page.on('request', (req) => {
        requests.push(req.url());
        if (req.url().startsWith(`${origin}/`)) void req.continue();
        else void req.abort('blockedbyclient');
      });
      page.on('console', (message) => {
        if (message.type() === 'error') consoleErrors.push(message.text());
      });
      await page.goto(`${origin}/track/${token}`, { timeout: 60_000 });
      await page.waitForSelector('body[data-state="ready"]', { timeout: 60_000 });
      const shown = await page.evaluate(() => ({
        status: document.getElementById('status')!.textContent,
        eta: document.getElementById('eta')!.textContent,
        milestones: document.getElementById('milestones')!.textContent,
        routePoints: document.getElementById('route')?.getAttribute('points')?.split(' ').length ?? 0,
        truck: document.getElementById('truck') !== null,
        destination: document.getElementById('destination') !== null,
        scrollWidth: document.documentElement.scrollWidth,
        mapWidth: document.getElementById('map')!.getBoundingClientRect().width,
      }));
      expect(shown.status).toBe('On the way');
      expect(shown.eta).toMatch(/^Expected /);
      expect(shown.milestones).toContain('Departed');
      expect(shown.routePoints).toBe(120);
      expect(shown).toMatchObject({ truck: true, destination: true });
      // Readable on a phone: nothing wider than the screen, the map as wide as the content.
      expect(shown.scrollWidth).toBeLessThanOrEqual(375);
      expect(shown.mapWidth).toBeGreaterThan(300);
      expect(requests.filter((url) => !url.startsWith(`${origin}/`))).toEqual([]);
      expect(requests).toEqual([`${origin}/track/${token}`, `${origin}/public/tracking/${token}`]);
      expect(consoleErrors).toEqual([]);

      // A revoked link: the page says so.
      await t.call('revokeTrackingLink', { token: await t.token('agent'), params: { id, linkId: link.body.result.id } });
      await page.reload();
      await page.waitForSelector('body[data-state="gone"]', { timeout: 60_000 });
      expect(await page.$eval('#status', (el) => el.textContent)).toBe('This tracking link was withdrawn.');
    } finally {
      await browser.close();
    }
  });
});
