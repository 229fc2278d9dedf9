import type { components } from '@transport-ops/contract';
import { iso } from '../../lib/time.js';
import type { ActorRow } from './repository.js';

export type Actor = components['schemas']['Actor'];
export type ActorCustomer = components['schemas']['ActorCustomer'];

export function toActor(row: ActorRow): Actor {
  return {
    id: row.id,
    publicId: row.public_id,
    actorRole: row.actor_role,
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    phone: row.phone,
    address: row.address,
    organization: row.organization_id === null ? null : { id: row.organization_id, name: row.organization_name! },
    user: row.user_id === null ? null : { id: row.user_id, username: row.username! },
    isActive: row.is_active,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export function toCustomer(row: ActorRow): ActorCustomer {
  return Object.assign({}, toActor(row), {
    transportsCount: Number(row.transports_count ?? 0),
    complaintsCount: Number(row.complaints_count ?? 0),
  });
}
