import type { Kysely } from 'kysely';
import type { Database, TransportStatus } from '../../db/schema.js';
import type { AuthContext } from '../../lib/identity.js';
import { emitEvent } from '../events/emit-repository.js';
import { toTransport } from '../transports/mappers.js';
import { storedState, TRANSPORT_WORKFLOW, workflowState } from '../transports/rules.js';
import { reload } from '../transports/service.js';
import { insertHistory, moveState } from '../transports/write-repository.js';

/** The statuses that take a proof of delivery (the contract's `createProofOfDelivery`). */
export const DELIVERABLE: TransportStatus[] = ['IN_PROGRESS', 'COMPLETED'];

/**
 * A proof of delivery for a transport still IN_PROGRESS completes it, through the workflow's own
 * FINISH transition: the receiver's signature is the fact that ends the transport, so the
 * transition is applied whatever the recorder's role (the table's roles are for a staff member
 * choosing the action). Recorded in the status history and sent as `transport.status_changed`.
 * Returns whether the transport was moved. The transport row is locked by the caller.
 */
export async function completeOnDelivery(
  trx: Kysely<Database>,
  auth: AuthContext,
  transport: { id: number; status: TransportStatus; validation_level: number },
  receiverName: string,
): Promise<boolean> {
  const state = workflowState(transport.status, transport.validation_level);
  const finish = TRANSPORT_WORKFLOW.transitions.find((t) => t.from === state && t.action === 'FINISH');
  if (!finish) return false;
  const target = storedState(finish.to);
  if (!(await moveState(trx, transport.id, transport, target))) return false;
  const comment = `Proof of delivery signed by ${receiverName}`;
  await insertHistory(trx, {
    transportId: transport.id,
    from: transport.status,
    to: target.status,
    action: 'FINISH',
    comment,
    userId: auth.userId,
    validationLevel: null,
  });
  await emitEvent(
    trx,
    'transport.status_changed',
    { type: 'transport', id: transport.id },
    {
      transport: toTransport(await reload(trx, transport.id)),
      action: 'FINISH',
      fromStatus: transport.status,
      toStatus: target.status,
      validationLevel: null,
      comment,
    },
  );
  return true;
}
