import { AppError, notFound } from '../../http/errors.js';
import type { ModuleHandlers } from '../../http/handlers.js';
import { fetchPage, pageMeta } from '../../lib/paging.js';
import { type AccessLevel, caller } from '../../lib/identity.js';
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
    const row = await insertSubscription(req.server.db, {
      url: body.url,
      description: body.description ?? null,
      eventTypes: body.eventTypes,
      isActive: body.isActive ?? true,
      sealed: sealSecret(secret, req.server.config.webhooks.secretKeys),
      createdBy: auth.userId,
    });
    await req.server.webhookEndpointsChanged();
    return { status: 201, message: 'Webhook created', result: Object.assign(toSubscription(row), { secret }) };
  },

  async getWebhook(req) {
    const row = await findSubscription(req.server.db, req.params.id);
    if (!row) throw webhookNotFound(req.params.id);
    return { message: 'Webhook retrieved', result: toSubscription(row) };
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
    const row = await updateSubscription(req.server.db, id, body);
    if (!row) throw webhookNotFound(id);
    await req.server.webhookEndpointsChanged();
    return { message: 'Webhook updated', result: toSubscription(row) };
  },

  async deleteWebhook(req) {
    if (!(await deleteSubscription(req.server.db, req.params.id))) throw webhookNotFound(req.params.id);
    await req.server.webhookEndpointsChanged();
    return { message: 'Webhook deleted', result: null };
  },

  async rotateWebhookSecret(req) {
    const secret = newSecret();
    const row = await updateSubscription(req.server.db, req.params.id, {
      sealed: sealSecret(secret, req.server.config.webhooks.secretKeys),
    });
    if (!row) throw webhookNotFound(req.params.id);
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
