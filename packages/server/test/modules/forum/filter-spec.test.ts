import { describe, it } from 'vitest';
import type { FilterSpecs } from '../../../src/lib/filter-spec.js';
import {
  MY_REPORT_FILTERS,
  type MyReportListParameters,
  TAG_FILTERS,
  type TagListParameters,
} from '../../../src/modules/forum/interaction-repository.js';
import { MESSAGE_FILTERS, type MessageListParameters } from '../../../src/modules/forum/message-repository.js';
import { FILTERS, type ListParameters } from '../../../src/modules/forum/topic-list-repository.js';
import { expectSpecMatchesContract } from '../../support/filter-spec.js';

/*
 * The forum's lists declare each filter once: topics (`FILTERS` in forum/topic-list-repository.ts),
 * a topic's messages (`MESSAGE_FILTERS` in forum/message-repository.ts), a user's reports and the
 * tag lookup (`MY_REPORT_FILTERS`, `TAG_FILTERS` in forum/interaction-repository.ts): the page and
 * its count apply it through the list's query.
 */

// Compile-time proof (`pnpm typecheck`): a query parameter the contract adds to one of these
// operations without a spec leaves its spec incomplete. If the mapped type ever stopped being
// exhaustive, these directives would be unused and tsc would fail on them instead.
// @ts-expect-error Property 'newFilter' is missing: every filter parameter needs its spec.
export const incompleteTopics: FilterSpecs<ListParameters & { newFilter?: string }> = FILTERS;
// @ts-expect-error Property 'newFilter' is missing: every filter parameter needs its spec.
export const incompleteReports: FilterSpecs<MyReportListParameters & { newFilter?: string }> = MY_REPORT_FILTERS;
// @ts-expect-error Property 'newFilter' is missing: every filter parameter needs its spec.
export const incompleteMessages: FilterSpecs<MessageListParameters & { newFilter?: string }> = MESSAGE_FILTERS;
// @ts-expect-error Property 'newFilter' is missing: every filter parameter needs its spec.
export const incompleteTags: FilterSpecs<TagListParameters & { newFilter?: string }> = TAG_FILTERS;

describe("the filter specs of the forum's lists", () => {
  it('handle every query parameter the contract gives each list, each once', () => {
    expectSpecMatchesContract(FILTERS, ['listForumTopics']);
    expectSpecMatchesContract(MY_REPORT_FILTERS, ['listMyForumReports']);
    expectSpecMatchesContract(MESSAGE_FILTERS, ['listTopicMessages']);
    expectSpecMatchesContract(TAG_FILTERS, ['listForumTags']);
  });
});
