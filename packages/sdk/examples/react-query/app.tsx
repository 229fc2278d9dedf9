// A small React app on the SDK's TanStack Query entry: log in, list transports with a query hook,
// create one with a mutation (the list refreshes). `window.API_BASE` is the API's address.
// Built with esbuild and driven in headless Chromium by scripts/react-query-example-check.mjs.
import { createTransportOpsClient } from '@transport-ops/sdk';
import { createQueryHooks, queryClientDefaults } from '@transport-ops/sdk/react-query';
import { QueryClient, QueryClientProvider, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, StrictMode, useState } from 'react';
import { createRoot } from 'react-dom/client';

declare global {
  interface Window {
    API_BASE: string;
  }
}

const api = createTransportOpsClient({ baseUrl: window.API_BASE });
const { useQuery, useMutation } = createQueryHooks(api);
const queryClient = new QueryClient({ defaultOptions: queryClientDefaults });

function Login({ onDone }: { onDone: (username: string) => void }) {
  const [failure, setFailure] = useState<string | null>(null);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    try {
      const result = await api.login(String(form.get('username')), String(form.get('password')));
      onDone(result.user.username);
    } catch (error) {
      setFailure(error instanceof Error ? error.message : String(error));
    }
  };
  return (
    <form id="login" onSubmit={submit}>
      <input name="username" placeholder="Username" />
      <input name="password" type="password" placeholder="Password" />
      <button type="submit">Log in</button>
      {failure && <p role="alert">{failure}</p>}
    </form>
  );
}

function Transports() {
  const { data, error, isPending } = useQuery('get', '/trade/transports', { params: { query: { limit: 20 } } });
  if (isPending) return <p id="transports-loading">Loading transports…</p>;
  if (error) return <p role="alert">{error.message}</p>;
  return (
    <ul id="transports" data-total={data.result.meta.total}>
      {data.result.data.map((t) => (
        <li key={t.id} data-id={t.id}>
          {t.loadingNumber}: {t.loadingPoint} ({t.status})
        </li>
      ))}
    </ul>
  );
}

function NewTransport() {
  const client = useQueryClient();
  const vehicleTypes = useQuery('get', '/trade/transports/vehicle-types');
  const create = useMutation('post', '/trade/transports', {
    // Every cached page of the list (keys are [method, path, init]) is fetched again.
    onSuccess: () => client.invalidateQueries({ queryKey: ['get', '/trade/transports'] }),
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    create.mutate({
      body: {
        chargerFirstName: 'Marc',
        chargerLastName: 'Dubois',
        vehicleTypeId: Number(form.get('vehicleTypeId')),
        loadingPoint: String(form.get('loadingPoint')),
        unloadingPoint: 'Marseille, Fos-sur-Mer terminal',
        productLabel: 'Steel coils',
        productQuantity: 24,
      },
    });
  };
  if (!vehicleTypes.data) return null;
  return (
    <form id="new-transport" onSubmit={submit}>
      <select name="vehicleTypeId">
        {vehicleTypes.data.result.map((v) => (
          <option key={v.id} value={v.id}>
            {v.name}
          </option>
        ))}
      </select>
      <input name="loadingPoint" placeholder="Loading point" />
      <button type="submit" disabled={create.isPending}>
        Create
      </button>
      {create.data && <p id="created">Created {create.data.result.loadingNumber}</p>}
      {create.error && <p role="alert">{create.error.message}</p>}
    </form>
  );
}

function App() {
  const [user, setUser] = useState<string | null>(null);
  if (!user) return <Login onDone={setUser} />;
  return (
    <main>
      <p id="user">Signed in as {user}</p>
      <NewTransport />
      <Transports />
    </main>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
);
