import { describe, expect, it } from 'vitest';
import { PAGING } from '../../src/lib/filter-spec.js';
import type { OperationId } from '../../src/http/handlers.js';
import * as actors from '../../src/modules/actors/repository.js';
import * as announcementsAdmin from '../../src/modules/announcements/admin-repository.js';
import * as announcements from '../../src/modules/announcements/repository.js';
import * as categories from '../../src/modules/categories/repository.js';
import * as complaintTypes from '../../src/modules/complaint-types/repository.js';
import * as complaints from '../../src/modules/complaints/repository.js';
import * as audit from '../../src/modules/audit/repository.js';
import * as events from '../../src/modules/events/repository.js';
import * as forumReports from '../../src/modules/forum-admin/report-repository.js';
import * as forumInteractions from '../../src/modules/forum/interaction-repository.js';
import * as forumMessages from '../../src/modules/forum/message-repository.js';
import * as forumTopics from '../../src/modules/forum/topic-list-repository.js';
import * as geography from '../../src/modules/geography/repository.js';
import * as notifications from '../../src/modules/notifications/repository.js';
import * as organizations from '../../src/modules/organizations/repository.js';
import * as roles from '../../src/modules/roles/repository.js';
import * as tags from '../../src/modules/tags/repository.js';
import * as transports from '../../src/modules/transports/repository.js';
import * as tutorialsAdmin from '../../src/modules/tutorials/admin-repository.js';
import * as tutorials from '../../src/modules/tutorials/repository.js';
import * as accounts from '../../src/modules/users/account-repository.js';
import * as users from '../../src/modules/users/repository.js';
import * as vehicleTypes from '../../src/modules/vehicle-types/repository.js';
import * as webhooks from '../../src/modules/webhooks/repository.js';
import { operations, queryParameterNames } from '../support/contract.js';
import { expectSpecMatchesContract } from '../support/filter-spec.js';

/*
 * Every operation of the contract that takes a filter (a query parameter other than the paging
 * ones) has a filter spec (lib/filter-spec.ts) that handles each of its parameters, or is not a
 * list. The type tests beside each module (`filter-spec.test.ts`) prove at compile time that a
 * spec misses none of its operations' parameters; this test finds the operations without one.
 */

/** Each spec with the operations whose query it handles. */
const SPECS: Array<[object, OperationId[]]> = [
  [transports.FILTERS, ['listTransports', 'listAdminTransports', 'exportTransportsReport']],
  [complaints.FILTERS, ['listComplaints', 'listAdminComplaints', 'exportComplaintsReport']],
  [actors.FILTERS, ['listAdmins', 'listAgents', 'listCustomers']],
  [accounts.FILTERS, ['listUsers']],
  [users.SESSION_FILTERS, ['listSessions']],
  [forumTopics.FILTERS, ['listForumTopics']],
  [forumMessages.MESSAGE_FILTERS, ['listTopicMessages']],
  [forumInteractions.MY_REPORT_FILTERS, ['listMyForumReports']],
  [forumInteractions.TAG_FILTERS, ['listForumTags']],
  [forumReports.FILTERS, ['listReportedMessages']],
  [announcements.USER_FILTERS, ['listAnnouncements']],
  [announcements.IMPORTANT_FILTERS, ['listImportantAnnouncements']],
  [announcementsAdmin.ADMIN_FILTERS, ['listAdminAnnouncements']],
  [tutorials.FILTERS, ['listTutorials']],
  [tutorials.SEARCH_FILTERS, ['searchTutorials']],
  [tutorialsAdmin.ADMIN_FILTERS, ['listAdminTutorials']],
  [categories.FILTERS, ['listConfigCategories']],
  [tags.FILTERS, ['listConfigTags']],
  [vehicleTypes.FILTERS, ['listConfigVehicleTypes']],
  [complaintTypes.FILTERS, ['listConfigComplaintTypes']],
  [roles.FILTERS, ['listConfigRoles']],
  [geography.COUNTRY_FILTERS, ['listConfigCountries']],
  [geography.STATE_FILTERS, ['listConfigStates']],
  [organizations.FILTERS, ['listOrganizations']],
  [notifications.FILTERS, ['listNotifications']],
  [events.FILTERS, ['listEvents']],
  [audit.FILTERS, ['listAuditLog']],
  [webhooks.DELIVERY_FILTERS, ['listWebhookDeliveries']],
];

/** Operations whose query parameters shape a statistic, not a list's rows. */
const NOT_LISTS: Partial<Record<OperationId, string>> = {
  getActorStats: 'the period (days) and the size of the top lists',
  getComplaintStats: 'the period (days)',
  getTransportStats: 'the period (days)',
  getReportStatistics: 'the period the figures cover',
  getOwnReportStatistics: 'the period the figures cover',
};

const paging: readonly string[] = PAGING;

describe('the filter specs', () => {
  it('cover every operation that takes a filter, except the statistics', () => {
    const specified = new Set(SPECS.flatMap(([, ids]) => ids));
    const filtered = operations.map((o) => o.operationId).filter((id) => queryParameterNames([id]).some((name) => !paging.includes(name)));
    expect(filtered.length).toBeGreaterThan(SPECS.length);
    expect(filtered.filter((id) => !specified.has(id) && NOT_LISTS[id] === undefined)).toEqual([]);
    expect([...specified].filter((id) => !filtered.includes(id))).toEqual([]);
  });

  it.each(SPECS.map(([spec, ids]) => ({ ids, spec })))('handle each query parameter of $ids once', ({ spec, ids }) => {
    expectSpecMatchesContract(spec, ids);
  });
});
