// The scenario a browser app on another origin runs through the SDK: log in, list, create,
// upload. Bundled by esbuild for the page; the outcome lands in `window.outcome`.
import { createTransportOpsClient, toFormData, unwrap } from '../../../../sdk/src/index.js';

declare global {
  interface Window {
    API_BASE: string;
    outcome?: Record<string, unknown>;
  }
}

async function scenario() {
  const api = createTransportOpsClient({ baseUrl: window.API_BASE });
  const login = await api.login('agent', 'demo1234');
  const listed = await api.GET('/trade/transports', { params: { query: { limit: 5 } } });
  const page = unwrap(listed);
  const vehicleTypes = unwrap(await api.GET('/trade/transports/vehicle-types'));
  const created = unwrap(
    await api.POST('/trade/transports', {
      body: {
        chargerFirstName: 'Marc',
        chargerLastName: 'Dubois',
        chargerPhone: '+33 6 45 21 87 90',
        vehicleTypeId: vehicleTypes[0]!.id,
        loadingPoint: 'Lyon, Port Edouard Herriot',
        unloadingPoint: 'Marseille, Fos-sur-Mer terminal',
        vehiclePlateNumber: 'GH-482-KT',
        productLabel: 'Steel coils',
        productQuantity: 24,
        averageWeight: 950,
        averageUnitPrice: 1250,
      } as never,
    }),
  );
  const pdf = new Blob(['%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n'], { type: 'application/pdf' });
  const form = toFormData({ files: [{ blob: pdf, filename: 'licence.pdf' }], transportId: created.id, documentType: 'DRIVING_LICENSE' });
  const uploaded = unwrap(await api.POST('/trade/transports/upload', { body: form as never }));
  return {
    origin: window.location.origin,
    user: login.user.username,
    listed: page.data.length,
    // Readable only when the API exposes them to the page's origin.
    requestId: listed.response.headers.get('x-request-id'),
    rateLimitRemaining: listed.response.headers.get('x-ratelimit-remaining'),
    createdId: created.id,
    uploaded: uploaded.uploaded.length,
  };
}

scenario().then(
  (result) => {
    window.outcome = { ok: true, ...result };
  },
  (error: unknown) => {
    window.outcome = { ok: false, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  },
);
