// The load generator of `pnpm bench:writes`: a process of its own running autocannon on request
// (IPC), where every connection is a distinct user (its own token) and every request body is made
// for that user: a transport, a complaint on one of its transports (one complaint per transport),
// or a message in its forum topic.
import autocannon from 'autocannon';

const TRANSPORT = (vehicleTypeId) => ({
  chargerFirstName: 'Bench',
  chargerLastName: 'Writer',
  vehicleTypeId,
  loadingPoint: 'Lyon, port terminal',
  unloadingPoint: 'Marseille, logistics platform',
  productLabel: 'Steel coils',
  productQuantity: 12,
  averageUnitPrice: 250.5,
});

process.on('message', ({ id, options }) => {
  const { url, connections, duration, users, kind, vehicleTypeId } = options;
  let next = 0;
  const started = process.hrtime.bigint();
  autocannon(
    {
      url,
      connections,
      duration,
      method: 'POST',
      requests: [
        {
          setupRequest(req, context) {
            // Each connection takes the next user once, then keeps it.
            context.user ??= users[next++ % users.length];
            const user = context.user;
            let body;
            if (kind === 'transport') body = TRANSPORT(vehicleTypeId);
            else if (kind === 'complaint') {
              const transportId = user.transports.pop();
              if (transportId === undefined) return null;
              body = { transportId, label: 'Pallets crushed at unloading' };
            } else body = { topicId: user.topicId, content: 'Truck arrived, unloading at dock 4.' };
            return {
              ...req,
              headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
              body: JSON.stringify(body),
            };
          },
        },
      ],
    },
    (error, result) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      if (error) return process.send({ id, error: String(error) });
      process.send({
        id,
        result: {
          latency: { p50: result.latency.p50, p99: result.latency.p99 },
          total: result.requests.total,
          seconds,
          ok: result['2xx'],
          non2xx: result.non2xx,
          errors: result.errors,
        },
      });
    },
  );
});
process.on('disconnect', () => process.exit(0));
