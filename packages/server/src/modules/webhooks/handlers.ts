import { AppError, notFound } from '../../lib/errors.js';
import type { ModuleHandlers } from '../../http/handlers.js';
import { fetchPage, pageMeta } from '../../lib/paging.js';
import { type AccessLevel, caller } from '../../lib/identity.js';
import { audit, REDACTED } from '../../lib/audit.js';
import { toDelivery, toSubscription } from './mappers.js';
import {
  deleteSubscription,
  findSubscription,
  findSubscriptionOwner,
  insertSubscription,
  listDeliveries,
  listSubscriptions,
  newSecret,
  updateSubscription,
} from './repository.js';
import { sealSecret } from '../../lib/webhook-secrets.js';
import { checkTarget } from './targets.js';
import type { ModuleRepresentations } from '../../http/write-safety/representations.js';

export type WebhookOps =
  | 'listWebhooks'
  | 'createWebhook'
  | 'getWebhook'
  | 'updateWebhook'
  | 'deleteWebhook'
  | 'rotateWebhookSecret'
  | 'listWebhookDeliveries';

/** Besides an endpoint's creator, who may point it to another URL (its secret signs what goes there). */
const URL_ADMIN_LEVELS: readonly AccessLevel[] = ['admin', 'super_admin'];

const webhookNotFound = (id: number) => notFound.resource('webhook', id);

export const webhookHandlers: ModuleHandlers<WebhookOps> = {
  async listWebhooks(req) {
    const { page = 1, limit = 10 } = req.query;
    const { rows, total } = await fetchPage(listSubscriptions(req.server.db), page, limit);
    return { message: 'Webhooks retrieved', result: { data: rows.map(toSubscription), meta: pageMeta(total, page, limit) } };
  },

  async createWebhook(req) {
    const auth = caller(req);
    const body = req.body;
    await checkTarget(body.url, req.server.config.webhooks);
    const secret = newSecret();
    const row = await req.server.db.transaction().execute(async (trx) => {
      const created = await insertSubscription(trx, {
        url: body.url,
        description: body.description ?? null,
        eventTypes: body.eventTypes,
        isActive: body.isActive ?? true,
        sealed: sealSecret(secret, req.server.config.webhooks.secretKeys),
        createdBy: auth.userId,
      });
      const { url, description, eventTypes, isActive } = toSubscription(created);
      await audit(trx, req, {
        action: 'webhook.created',
        resource: { type: 'webhook', id: created.id },
        after: { url, description, eventTypes, isActive },
      });
      return created;
    });
    await req.server.webhookEndpointsChanged();
    return { status: 201, message: 'Webhook created', result: Object.assign(toSubscription(row), { secret }) };
  },

  async getWebhook(req) {
    return { message: 'Webhook retrieved', result: await webhookRepresentations.getWebhook.read(req) };
  },

  async updateWebhook(req) {
    const { id } = req.params;
    const body = req.body;
    if (body.url !== undefined) {
      const current = await findSubscriptionOwner(req.server.db, id);
      if (!current) throw webhookNotFound(id);
      const auth = caller(req);
      if (body.url !== current.url && current.created_by !== auth.userId && !URL_ADMIN_LEVELS.includes(auth.accessLevel)) {
        throw new AppError(
          'FORBIDDEN',
          { requiredRoles: [...URL_ADMIN_LEVELS] },
          'Only its creator or an administrator may move a webhook endpoint',
        );
      }
      await checkTarget(body.url, req.server.config.webhooks);
    }
    const row = await req.server.db.transaction().execute(async (trx) => {
      const current = await findSubscription(trx, id);
      const updated = current && (await updateSubscription(trx, id, body));
      if (!current || !updated) return undefined;
      await audit(trx, req, { action: 'webhook.updated', resource: { type: 'webhook', id }, before: toSubscription(current), after: body });
      return updated;
    });
    if (!row) throw webhookNotFound(id);
    await req.server.webhookEndpointsChanged();
    return { message: 'Webhook updated', result: toSubscription(row) };
  },

  async deleteWebhook(req) {
    const { id } = req.params;
    const deleted = await req.server.db.transaction().execute(async (trx) => {
      const current = await findSubscription(trx, id);
      if (!current || !(await deleteSubscription(trx, id))) return false;
      await audit(trx, req, { action: 'webhook.deleted', resource: { type: 'webhook', id }, before: toSubscription(current) });
      return true;
    });
    if (!deleted) throw webhookNotFound(id);
    await req.server.webhookEndpointsChanged();
    return { message: 'Webhook deleted', result: null };
  },

  async rotateWebhookSecret(req) {
    const secret = newSecret();
    const { id } = req.params;
    const row = await req.server.db.transaction().execute(async (trx) => {
      const updated = await updateSubscription(trx, id, { sealed: sealSecret(secret, req.server.config.webhooks.secretKeys) });
      if (updated) {
        await audit(trx, req, {
          action: 'webhook.secret_rotated',
          resource: { type: 'webhook', id },
          before: { secret: REDACTED },
          after: { secret: REDACTED },
        });
      }
      return updated;
    });
    if (!row) throw webhookNotFound(id);
    return { message: 'Webhook secret rotated', result: Object.assign(toSubscription(row), { secret }) };
  },

  async listWebhookDeliveries(req) {
    const { id } = req.params;
    const { page = 1, limit = 10 } = req.query;
    const { db } = req.server;
    if (!(await findSubscription(db, id))) throw webhookNotFound(id);
    const { rows, total } = await fetchPage(listDeliveries(db, id, req.query), page, limit);
    return { message: 'Deliveries retrieved', result: { data: rows.map(toDelivery), meta: pageMeta(total, page, limit) } };
  },
};

/** The subscription as its GET answers it (write-safety/representations.ts). */
export const webhookRepresentations: ModuleRepresentations<'getWebhook'> = {
  getWebhook: {
    row: { table: 'webhook_subscriptions', id: (req) => req.params.id },
    async read(req) {
      const row = await findSubscription(req.server.db, req.params.id);
      if (!row) throw webhookNotFound(req.params.id);
      return toSubscription(row);
    },
  },
};
