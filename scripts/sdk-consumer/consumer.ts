// A consumer of the packed SDK, as a frontend or partner project would write it. Type-checked and
// run by scripts/sdk-consumer-check.sh against the server at API_URL.
import { ApiError, createTransportOpsClient, NetworkError, type Schemas } from '@transport-ops/sdk';
import { verifyWebhook, WebhookVerificationError } from '@transport-ops/sdk/webhooks';

const baseUrl = process.env.API_URL!;
const check = (ok: boolean, what: string) => {
  if (!ok) throw new Error(`consumer check failed: ${what}`);
  console.log(`ok - ${what}`);
};

const api = createTransportOpsClient({ baseUrl, timeoutMs: 10_000 });
const login = await api.login('agent', 'demo1234');
check(login.token_type === 'Bearer', 'logs in as the demo agent');

const page = await api.op.listTransports({ page: 1, limit: 5 });
check(page.meta.current_page === 1 && page.data.length > 0, `lists transports (${page.meta.total} visible)`);
const first: Schemas['TransportListItem'] | undefined = page.data[0];

const viaPath = await api.GET('/trade/transports/{id}', { params: { path: { id: first!.id } } });
const viaOp = await api.op.getTransportById({ id: first!.id });
check(viaPath.data?.result.loadingNumber === viaOp.loadingNumber, 'path form and operationId form agree');

let count = 0;
for await (const t of api.paginate('listTransports', { limit: 2 })) count += t.id > 0 ? 1 : 0;
check(count === page.meta.total, `iterates every page (${count} items)`);

const missing = await api.op.getTransportById({ id: 999_999 }).catch((e: unknown) => e);
check(
  missing instanceof ApiError && missing.is('TRANSPORT_NOT_FOUND') && missing.detail.transportId === 999_999 && !!missing.requestId,
  'a missing transport is a typed ApiError with its request id',
);

const pdf = new File(['%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n'], 'licence.pdf', { type: 'application/pdf' });
const upload = await api.op.uploadTransportDocuments({ files: [pdf], transportId: first!.id, documentType: 'DRIVING_LICENSE' });
check(upload.uploaded.length === 1, 'uploads a document from a typed body');
// @ts-expect-error a misspelled multipart field does not compile
void (() => api.op.uploadTransportDocuments({ file: [pdf], transportId: 1, documentType: 'DRIVING_LICENSE' }));

const offline = createTransportOpsClient({ baseUrl: 'http://127.0.0.1:9', retries: 0 });
const unreachable = await offline.op.getHealth().catch((e: unknown) => e);
check(unreachable instanceof NetworkError && !!unreachable.requestId, 'an unreachable server is a NetworkError');

await api.logout();
check((await api.tokens.get()) === null, 'logs out');

// A receiver: a request signed per Standard Webhooks (here with WebCrypto) verifies; a changed body does not.
const secretBytes = crypto.getRandomValues(new Uint8Array(32));
const secret = `whsec_${btoa(String.fromCharCode(...secretBytes))}`;
const body = JSON.stringify({
  id: 'evt_1',
  type: 'tutorial.completed',
  occurredAt: new Date().toISOString(),
  resource: { type: 'tutorial', id: 3 },
  data: { tutorialId: 3, userId: 7 },
});
const timestamp = String(Math.floor(Date.now() / 1000));
const key = await crypto.subtle.importKey('raw', secretBytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`evt_1.${timestamp}.${body}`)));
const headers = { 'webhook-id': 'evt_1', 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${btoa(String.fromCharCode(...mac))}` };
const event = await verifyWebhook(body, headers, secret);
check(event.type === 'tutorial.completed' && event.data.tutorialId === 3, 'verifies a signed webhook (@transport-ops/sdk/webhooks)');
const forged = await verifyWebhook(body.replace('"userId":7', '"userId":8'), headers, secret).catch((e: unknown) => e);
check(forged instanceof WebhookVerificationError, 'refuses a webhook whose body was changed');
