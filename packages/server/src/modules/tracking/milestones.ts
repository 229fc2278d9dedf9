import type { components } from '@transport-ops/contract';
import { isUniqueViolation } from '../../lib/db-errors.js';
import type { AuthContext } from '../../lib/identity.js';
import { insertComplaint } from '../complaints/change-repository.js';
import { emitComplaintCreated } from '../complaints/events-repository.js';
import { complaintOfTransport } from '../complaints/repository.js';
import { emitEvent } from '../events/emit-repository.js';
import { toTransport } from '../transports/mappers.js';
import { transportNotFound } from '../transports/rules.js';
import { reload } from '../transports/service.js';
import { insertHistory, moveState } from '../transports/write-repository.js';
import { CLOCK_SKEW_MS } from './ingest.js';
import { toMilestone } from './mappers.js';
import { insertMilestone, lockVisibleTransport } from './milestone-repository.js';
import type { Db } from './repository.js';
import { complaintExists, complaintOnlyWithIncident, milestoneMove, notTrackable, occurredAhead, TRACKABLE } from './rules.js';

type Schemas = components['schemas'];

/**
 * Records a milestone in one transaction, the transport locked: its status move through the
 * transport workflow (history entry and `transport.status_changed`), the complaint an incident
 * opens (`complaint.created`), then the milestone and `transport.milestone_recorded`.
 */
export async function recordMilestone(
  db: Db,
  auth: AuthContext,
  transportId: number,
  body: Schemas['TransportMilestoneRequest'],
  now: Date = new Date(),
): Promise<{ milestone: Schemas['TransportMilestone']; status: Schemas['TransportStatus'] }> {
  if (body.complaint && body.type !== 'INCIDENT') throw complaintOnlyWithIncident();
  if (Date.parse(body.occurredAt) > now.getTime() + CLOCK_SKEW_MS) throw occurredAhead();
  try {
    return await db.transaction().execute(async (trx) => {
      const transport = await lockVisibleTransport(trx, auth, transportId);
      if (!transport) throw transportNotFound(transportId);
      if (!TRACKABLE.includes(transport.status)) throw notTrackable(transportId, transport.status);
      const move = milestoneMove(body.type, transport.status, transport.validation_level);
      const comment = body.note ?? `Milestone ${body.type}`;
      if (move) {
        const to = { status: move.to, validation_level: 2 };
        // The row is locked: the state read is the state moved from.
        await moveState(trx, transportId, transport, to);
        await insertHistory(trx, { transportId, from: transport.status, to: move.to, action: move.action, comment, userId: auth.userId });
        await emitEvent(
          trx,
          'transport.status_changed',
          { type: 'transport', id: transportId },
          {
            transport: toTransport(await reload(trx, transportId)),
            action: move.action,
            fromStatus: transport.status,
            toStatus: move.to,
            validationLevel: null,
            comment,
          },
        );
      }
      let complaintId: number | null = null;
      if (body.complaint) {
        const existing = await complaintOfTransport(trx, transportId);
        if (existing !== undefined) throw complaintExists(transportId, existing);
        const complaint = await insertComplaint(trx, {
          label: body.complaint.label,
          description: body.complaint.description ?? null,
          transport_id: transportId,
          customer_id: transport.customer_id,
          country_id: auth.countryId,
          created_by: auth.userId,
        });
        complaintId = complaint.id;
        await emitComplaintCreated(trx, complaint.id);
      }
      const row = await insertMilestone(trx, {
        transport_id: transportId,
        type: body.type,
        occurred_at: body.occurredAt,
        note: body.note ?? null,
        latitude: body.position?.latitude ?? null,
        longitude: body.position?.longitude ?? null,
        complaint_id: complaintId,
        status_action: move?.action ?? null,
        from_status: move ? transport.status : null,
        to_status: move?.to ?? null,
        created_by: auth.userId,
      });
      const milestone = toMilestone(row);
      const status = move?.to ?? transport.status;
      await emitEvent(trx, 'transport.milestone_recorded', { type: 'transport', id: transportId }, { transportId, status, milestone });
      return { milestone, status };
    });
  } catch (error) {
    // A complaint filed by another request between the look-up and the insert.
    if (!isUniqueViolation(error, 'complaints_transport_id_key')) throw error;
    throw complaintExists(transportId, (await complaintOfTransport(db, transportId)) ?? 0);
  }
}
