import type { components } from '@transport-ops/contract';
import type { TopicStatus } from '../../db/schema.js';
import { stateMachine } from '../../lib/state-machine.js';
import type { AccessLevel } from '../../lib/identity.js';

export type TopicAction = components['schemas']['ForumTopicModerationAction'];
type StatusAction = Exclude<TopicAction, 'HIDE' | 'UNHIDE'>;

const MODERATORS = ['supervisor', 'admin', 'super_admin'] as const;
const row = (from: TopicStatus, action: StatusAction, to: TopicStatus) => ({ from, action, to, roles: MODERATORS });

/** The status actions of the contract's table: where each is offered and where it leads. */
const TOPIC_WORKFLOW = stateMachine<TopicStatus, StatusAction, AccessLevel>([
  row('ACTIVE', 'CLOSE', 'CLOSED'),
  row('ACTIVE', 'ARCHIVE', 'ARCHIVED'),
  row('CLOSED', 'REOPEN', 'ACTIVE'),
  row('CLOSED', 'ARCHIVE', 'ARCHIVED'),
  row('ARCHIVED', 'REOPEN', 'ACTIVE'),
]);
const ORDER: StatusAction[] = ['CLOSE', 'REOPEN', 'ARCHIVE'];

/** Actions offered in a status, in the contract's order (HIDE and UNHIDE always are). */
export function allowedTopicActions(status: TopicStatus): TopicAction[] {
  const statusActions = TOPIC_WORKFLOW.allowed(status);
  return [...ORDER.filter((a) => statusActions.includes(a)), 'HIDE', 'UNHIDE'];
}

/** Where a status action may start and where it leads (every move of one action leads to the same status). */
export function statusMove(action: StatusAction): { from: TopicStatus[]; to: TopicStatus } {
  const moves = TOPIC_WORKFLOW.transitions.filter((t) => t.action === action);
  return { from: moves.map((t) => t.from), to: moves[0]!.to };
}
