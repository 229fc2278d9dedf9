import type { components } from '@transport-ops/contract';
import type { ColumnType, Generated, GeneratedAlways, Insertable, Selectable, Updateable } from 'kysely';
import type { AccessLevel } from '../lib/identity.js';

/*
 * Kysely view of the tables created by migrations/0001_initial.ts (snake_case, as in the database).
 * Keep in step with the migrations: this file describes the latest schema.
 */

/** timestamptz with a default (now()): read as Date, written as Date or ISO string, optional. */
export type Timestamp = ColumnType<Date, Date | string | undefined, Date | string | undefined>;
/** timestamptz without default, required on insert. */
export type RequiredTimestamp = ColumnType<Date, Date | string, Date | string | undefined>;
/** Nullable timestamptz. */
export type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null | undefined>;

/**
 * jsonb: read back parsed, written as JSON text (JSON.stringify). Both drivers accept a string;
 * `pg` would turn a JS array into a PostgreSQL array literal, so never pass objects directly.
 */
export type Json<T> = ColumnType<T, string, string>;
export type NullableJson<T> = ColumnType<T | null, string | null | undefined, string | null | undefined>;
export type JsonWithDefault<T> = ColumnType<T, string | undefined, string>;

/** bytea: Buffer with `pg`, Uint8Array with PGlite. */
export type Bytes = Uint8Array;

/*
 * Enumerations come from the contract (the single source); test/db/enums.test.ts checks that every
 * CHECK list of the migrated database holds exactly these values.
 */
type Schemas = components['schemas'];
export type OrganizationType = Schemas['OrganizationType'];
export type ActorRole = Schemas['ActorRole'];
export type CategoryScope = Schemas['CategoryScope'];
export type VehicleCategory = Schemas['VehicleTypeCategory'];
export type TransportStatus = Schemas['TransportStatus'];
/** The actions of the status history: the contract's transport actions and `CREATE`. */
export type TransportAction = Schemas['TransportHistoryAction'];
export type TransportDocumentType = Schemas['DocumentType'];
export type ComplaintStatus = Schemas['ComplaintStatus'];
export type HistoryActorType = NonNullable<Schemas['ComplaintStatusHistoryEntry']['createdBy']>['type'];
export type NotificationChannel = Schemas['ComplaintNotification']['channel'];
/** The contract shows `QUEUED` only; the column also keeps the delivery outcomes. */
export type NotificationStatus = Schemas['ComplaintNotification']['status'] | 'SENT' | 'FAILED';
export type TopicStatus = Schemas['ForumTopicStatus'];
export type VoteKind = Exclude<Schemas['ForumVoteAction'], 'REMOVE'>;
export type ReportReason = Schemas['ForumReportReason'];
export type ReportStatus = Schemas['ForumReportStatus'];
export type AnnouncementStatus = Schemas['AnnouncementStatus'];
export type Priority = Schemas['AnnouncementPriority'];
export type Difficulty = Schemas['TutorialDifficulty'];
export type TutorialDuration = Schemas['TutorialDuration'];
export type TutorialStatus = Schemas['TutorialStatus'];

export interface ImageJson {
  url: string;
  alt?: string;
  width?: number;
  height?: number;
}
export interface AttachmentJson {
  id: number | string;
  filename: string;
  type: string;
  size: number;
  url: string;
  description?: string;
}
export interface VideoJson {
  url: string;
  duration?: number;
  size?: number;
  quality?: string;
  subtitles?: { language: string; url: string }[];
}

export interface RolesTable {
  id: Generated<number>;
  code: string;
  name: string;
  description: string | null;
  access_level: AccessLevel;
  is_system: Generated<boolean>;
  is_active: Generated<boolean>;
  /** Users holding the role (kept by triggers, migration 0008). */
  users_count: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface CountriesTable {
  id: Generated<number>;
  code: string;
  name: string;
  is_active: Generated<boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface StatesTable {
  id: Generated<number>;
  country_id: number;
  code: string;
  name: string;
  is_active: Generated<boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface OrganizationsTable {
  id: Generated<number>;
  public_id: Generated<string>;
  name: string;
  code: string;
  type: OrganizationType;
  parent_id: number | null;
  manager_user_id: number | null;
  country_id: number | null;
  is_active: Generated<boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ActorsTable {
  id: Generated<number>;
  public_id: Generated<string>;
  actor_role: ActorRole;
  first_name: string;
  last_name: string;
  email: string | null;
  phone: string | null;
  address: string | null;
  organization_id: number | null;
  user_id: number | null;
  is_active: Generated<boolean>;
  /** Transports naming this customer, kept by a trigger on transports (0007). */
  transports_count: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Login attempts per normalised username (0018), the per-account throttle of `POST /auth/login`. */
export interface LoginThrottlesTable {
  username_key: string;
  attempts: number;
  window_started_at: Timestamp;
  lockouts: number;
  locked_until: NullableTimestamp;
  last_attempt_at: Timestamp;
}

export interface UsersTable {
  id: Generated<number>;
  username: string;
  email: string;
  password_hash: string;
  role_id: number;
  country_id: number;
  organization_id: number | null;
  actor_id: number | null;
  is_active: Generated<boolean>;
  last_login: NullableTimestamp;
  bio: string | null;
  avatar: Bytes | null;
  avatar_mime: string | null;
  avatar_updated_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface SessionsTable {
  id: Generated<number>;
  user_id: number;
  created_at: Timestamp;
  expires_at: RequiredTimestamp;
  last_used_at: Timestamp;
  revoked_at: NullableTimestamp;
  revoked_reason: string | null;
  ip_address: string | null;
  user_agent: string | null;
}

export interface CategoriesTable {
  id: Generated<number>;
  scope: CategoryScope;
  name: string;
  description: string | null;
  color: string | null;
  icon: string | null;
  is_active: Generated<boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface TagsTable {
  id: Generated<number>;
  name: string;
  color: string | null;
  is_active: Generated<boolean>;
  /** Forum topics carrying the tag (kept by triggers, migration 0008). */
  topics_count: Generated<number>;
  /** Visible (not hidden) forum topics carrying the tag (kept by triggers, migration 0009). */
  visible_topics_count: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ComplaintTypesTable {
  id: Generated<number>;
  name: string;
  description: string | null;
  is_active: Generated<boolean>;
  /** Complaints of the type (kept by triggers, migration 0008). */
  complaints_count: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface VehicleTypesTable {
  id: Generated<number>;
  name: string;
  description: string | null;
  max_weight: number;
  category: VehicleCategory;
  is_active: Generated<boolean>;
  /** Transports of the type (kept by triggers, migration 0008). */
  transports_count: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface TransportsTable {
  id: Generated<number>;
  public_id: Generated<string>;
  /** Defaults to transport_loading_number() (TRP-YYYYMMDD-NNNNNN from transport_loading_seq). */
  loading_number: Generated<string>;
  charger_first_name: string;
  charger_last_name: string;
  charger_phone: string | null;
  charger_email: string | null;
  vehicle_type_id: number;
  loading_point: string;
  unloading_point: string | null;
  vehicle_plate_number: string | null;
  product_label: string | null;
  product_quantity: number | null;
  average_weight: number | null;
  average_unit_price: number | null;
  total_product_value: number | null;
  status: Generated<TransportStatus>;
  /** Two-level validation reached: 0 none, 1 team manager (still PENDING), 2 supervisor (validated). */
  validation_level: Generated<number>;
  customer_id: number | null;
  created_by: number;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Optional coordinates (WGS 84 degrees) and appointment windows of the two points (0024). */
  loading_latitude: ColumnType<number | null, number | null | undefined, number | null | undefined>;
  loading_longitude: ColumnType<number | null, number | null | undefined, number | null | undefined>;
  unloading_latitude: ColumnType<number | null, number | null | undefined, number | null | undefined>;
  unloading_longitude: ColumnType<number | null, number | null | undefined, number | null | undefined>;
  loading_window_start: NullableTimestamp;
  loading_window_end: NullableTimestamp;
  unloading_window_start: NullableTimestamp;
  unloading_window_end: NullableTimestamp;
}

/** Reported positions, partitioned by `recorded_at` (one partition per UTC day, 0024). */
export interface TransportPositionsTable {
  transport_id: number;
  recorded_at: RequiredTimestamp;
  latitude: number;
  longitude: number;
  speed_kmh: number | null;
  heading_deg: number | null;
  accuracy_m: number | null;
  received_at: Timestamp;
}

/** The newest position of each transport, and the last ETA announced to partners (0024). */
export interface TransportLastPositionsTable extends TransportPositionsTable {
  eta_announced_at: NullableTimestamp;
}

/** What a transport's live stream sends, kept a bounded time for resuming clients (0028). */
export interface TransportLiveEventsTable {
  /** Given by the table's trigger (in order along one transport): never written by the application. */
  id: Generated<number>;
  transport_id: number;
  type: LiveEventType;
  data: unknown;
  created_at: Generated<Date>;
}

export type LiveEventType = 'position' | 'milestone' | 'eta' | 'status' | 'delivered';

/** The greatest live event id swept so far (one row, 0028). */
export interface TransportLiveSweepsTable {
  id: Generated<boolean>;
  swept_through: number;
}

/** One open live stream of some instance (0029): counted against its user's limit until it expires. */
export interface LiveStreamLeasesTable {
  id: GeneratedAlways<number>;
  user_id: number;
  instance: string;
  expires_at: RequiredTimestamp;
  created_at: Generated<Date>;
}

export type MilestoneType = Schemas['TransportMilestoneType'];

export interface TransportMilestonesTable {
  id: Generated<number>;
  transport_id: number;
  type: MilestoneType;
  occurred_at: RequiredTimestamp;
  note: string | null;
  latitude: number | null;
  longitude: number | null;
  complaint_id: number | null;
  /** The status move the milestone caused, null when none. */
  status_action: TransportAction | null;
  from_status: TransportStatus | null;
  to_status: TransportStatus | null;
  created_by: number;
  created_at: Timestamp;
}

export interface TransportStatusHistoryTable {
  id: Generated<number>;
  transport_id: number;
  from_status: TransportStatus | null;
  to_status: TransportStatus;
  action: TransportAction;
  /** The validation level a VALIDATE or REJECT of a pending transport acted at (1 or 2). */
  validation_level: number | null;
  comment: string | null;
  created_by: number;
  created_at: Timestamp;
}

export interface TransportDocumentsTable {
  id: Generated<number>;
  transport_id: number;
  type: TransportDocumentType;
  filename: string;
  mime_type: string;
  size: number;
  /** The bytes, or null when they are in the file store under `storage_key` (exactly one is set). */
  content: Bytes | null;
  storage_key: string | null;
  uploaded_by: number;
  uploaded_at: Timestamp;
}

/** Keys of stored files whose rows were deleted, removed from the file store after commit. */
export interface FileDeletionsTable {
  storage_key: string;
  queued_at: Generated<Timestamp>;
}

export interface ComplaintsTable {
  id: Generated<number>;
  public_id: Generated<string>;
  label: string;
  description: string | null;
  status: Generated<ComplaintStatus>;
  location: string | null;
  amount_paid: number | null;
  time_lost: number | null;
  transport_id: number;
  customer_id: number | null;
  complaint_type_id: number | null;
  country_id: number | null;
  created_by: number;
  assigned_to: number | null;
  resolved_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ComplaintStatusHistoryTable {
  id: Generated<number>;
  complaint_id: number;
  status: ComplaintStatus;
  comment: string | null;
  created_by: number | null;
  created_by_type: Generated<HistoryActorType>;
  created_at: Timestamp;
}

export interface ComplaintNotificationsTable {
  id: Generated<number>;
  complaint_id: number;
  customer_id: number;
  channel: NotificationChannel;
  recipient: string;
  subject: string | null;
  body: string;
  status: Generated<NotificationStatus>;
  attempts: Generated<number>;
  last_error: string | null;
  next_attempt_at: Timestamp;
  sent_at: NullableTimestamp;
  created_at: Timestamp;
}

/** A certificate as issued, kept when its tutorial or its holder's progress goes away. */
export interface CertificatesTable {
  code: string;
  user_id: number | null;
  tutorial_id: number | null;
  tutorial_title: string;
  holder_first_name: string;
  holder_last_name: string;
  issued_at: RequiredTimestamp;
}

export type ViewedResource = 'ANNOUNCEMENT' | 'FORUM_TOPIC' | 'TUTORIAL';

/** One row per resource, user and day: a view is counted once per user per day. */
export interface ContentViewsTable {
  resource_type: ViewedResource;
  resource_id: number;
  user_id: number;
  day: string;
}

/** Headers kept with a stored answer to replay (name -> value). */
export type StoredHeaders = Record<string, string>;

/** A caller's `Idempotency-Key` (migration 0014): claimed, then holding the answer to replay. */
export interface IdempotencyKeysTable {
  scope: string;
  key: string;
  operation: string;
  fingerprint: string;
  /** Null while the first request is in flight. */
  status: number | null;
  headers: NullableJson<StoredHeaders>;
  body: string | null;
  /** The request running under the key (migration 0021); null on keys of older versions. */
  holder: string | null;
  locked_until: RequiredTimestamp;
  expires_at: RequiredTimestamp;
  created_at: Timestamp;
}

export interface ComplaintAttachmentsTable {
  id: Generated<number>;
  complaint_id: number | null;
  uploaded_by: number;
  filename: string;
  mime_type: string;
  size: number;
  /** The bytes, or null when they are in the file store under `storage_key` (exactly one is set). */
  content: Bytes | null;
  storage_key: string | null;
  created_at: Timestamp;
}

export interface ForumTopicsTable {
  id: Generated<number>;
  public_id: Generated<string>;
  title: string;
  description: string | null;
  content: string;
  status: Generated<TopicStatus>;
  is_hidden: Generated<boolean>;
  category_id: number | null;
  author_id: number;
  views_count: Generated<number>;
  messages_count: Generated<number>;
  likes_count: Generated<number>;
  last_message_at: Timestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ForumTopicTagsTable {
  topic_id: number;
  tag_id: number;
}

export interface ForumMessagesTable {
  id: Generated<number>;
  topic_id: number;
  parent_id: number | null;
  author_id: number;
  content: string;
  is_main_message: Generated<boolean>;
  likes_count: Generated<number>;
  dislikes_count: Generated<number>;
  replies_count: Generated<number>;
  is_hidden: Generated<boolean>;
  deleted_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ForumVotesTable {
  message_id: number;
  user_id: number;
  vote: VoteKind;
  created_at: Timestamp;
}

export interface ForumTopicLikesTable {
  topic_id: number;
  user_id: number;
  created_at: Timestamp;
}

export interface ForumSubscriptionsTable {
  topic_id: number;
  user_id: number;
  created_at: Timestamp;
}

export interface ForumReportsTable {
  id: Generated<number>;
  message_id: number;
  reporter_id: number;
  reason: ReportReason;
  comment: string | null;
  status: Generated<ReportStatus>;
  resolution_comment: string | null;
  resolved_by: number | null;
  resolved_at: NullableTimestamp;
  created_at: Timestamp;
}

/**
 * Forum totals per topic category (0: none), kept by triggers on topics and messages (0007). This
 * and every roll-up below is a view since 0016 (folded totals union all appended rows): a key may
 * appear more than once, read its figures as sums.
 */
export interface ForumCategoryCountsTable {
  category_id: number;
  topics: number;
  topics_hidden: number;
  topics_active: number;
  topics_closed: number;
  topics_archived: number;
  /** Messages not deleted (hidden ones included). */
  messages: number;
  messages_hidden: number;
  messages_deleted: number;
}

/** Forum reports per status, kept by a trigger on forum_reports (0007). */
export interface ForumReportCountsTable {
  status: ReportStatus;
  reports: number;
}

/**
 * Changes of the usage counters kept in a column of the counted row (`counter`: table.column),
 * appended by triggers and added to the column by fold_statistics() (0016).
 */
export interface CounterDeltasTable {
  counter: string;
  id: number;
  delta: number;
}

/** Transports per creator, status, validation level and vehicle type (triggers, 0009). */
export interface TransportUserCountsTable {
  created_by: number;
  status: TransportStatus;
  validation_level: number;
  vehicle_type_id: number;
  transports: number;
  /** Sum of total_product_value (numeric). */
  product_value: number;
}

/** Transports per UTC day of creation, status and validation level (triggers, 0009). */
export interface TransportDayCountsTable {
  day: string;
  status: TransportStatus;
  validation_level: number;
  transports: number;
  product_value: number;
}

/** Complaints per creator, status, complaint type and country, 0 for none (triggers, 0009). */
export interface ComplaintUserCountsTable {
  created_by: number;
  status: ComplaintStatus;
  complaint_type_id: number;
  country_id: number;
  complaints: number;
  amount_paid: number;
  /** Complaints with a resolved_at, and the sum of their resolved_at - created_at in seconds. */
  resolved: number;
  resolution_seconds: number;
}

/** Complaints per UTC day of creation and status (triggers, 0009). */
export interface ComplaintDayCountsTable {
  day: string;
  status: ComplaintStatus;
  complaints: number;
  amount_paid: number;
  resolved: number;
  resolution_seconds: number;
}

/** Per user and UTC day: transports and complaints created, RESOLVED history entries written (triggers, 0009). */
export interface UserDayCountsTable {
  user_id: number;
  day: string;
  transports: number;
  complaints: number;
  resolutions: number;
}

/** user_day_counts per UTC month, `month` its first day (triggers, 0009). */
export interface UserMonthCountsTable {
  user_id: number;
  month: string;
  transports: number;
  complaints: number;
  resolutions: number;
}

/** Actors per role, organization (0: none) and active flag (triggers, 0009). */
export interface ActorCountsTable {
  actor_role: ActorRole;
  organization_id: number;
  is_active: boolean;
  actors: number;
}

export interface AnnouncementsTable {
  id: Generated<number>;
  public_id: Generated<string>;
  title: string;
  summary: string | null;
  content: string;
  status: Generated<AnnouncementStatus>;
  priority: Generated<Priority>;
  category_id: number | null;
  featured_image: NullableJson<ImageJson>;
  attachments: JsonWithDefault<AttachmentJson[]>;
  author_id: number;
  /** Role codes (e.g. AGENT, SUPERVISOR). */
  target_user_types: Generated<string[]>;
  /** Country codes (e.g. FR, SN). */
  target_regions: Generated<string[]>;
  is_global: Generated<boolean>;
  views_count: Generated<number>;
  likes_count: Generated<number>;
  published_at: NullableTimestamp;
  expires_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** The title, summary and content lower-cased and joined (migration 0020): the search's first test. */
  search_text: GeneratedAlways<string>;
}

export interface AnnouncementTagsTable {
  announcement_id: number;
  tag_id: number;
}

export interface AnnouncementReadsTable {
  announcement_id: number;
  user_id: number;
  read_at: Timestamp;
}

export interface AnnouncementLikesTable {
  announcement_id: number;
  user_id: number;
  created_at: Timestamp;
}

export interface TutorialsTable {
  id: Generated<number>;
  public_id: Generated<string>;
  title: string;
  description: string | null;
  summary: string | null;
  content: string | null;
  difficulty: Difficulty;
  /** Minutes. */
  estimated_time: number;
  /** Derived from estimated_time by the database (<20 SHORT, <60 MEDIUM, else LONG); read-only. */
  duration: GeneratedAlways<TutorialDuration>;
  category_id: number | null;
  thumbnail: NullableJson<ImageJson>;
  video: NullableJson<VideoJson>;
  attachments: JsonWithDefault<AttachmentJson[]>;
  author_id: number;
  status: Generated<TutorialStatus>;
  /** tsvector (title A, description B, content C); query it with sql, read-only. */
  search_vector: GeneratedAlways<string>;
  views_count: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface TutorialChaptersTable {
  id: Generated<number>;
  tutorial_id: number;
  position: number;
  title: string;
  /** Seconds. */
  start_time: Generated<number>;
  /** Seconds. */
  duration: Generated<number>;
  description: string | null;
}

export interface TutorialPrerequisitesTable {
  tutorial_id: number;
  prerequisite_id: number;
}

export interface TutorialTagsTable {
  tutorial_id: number;
  tag_id: number;
}

/**
 * Per-tutorial statistics of the progress records (migration 0019): a view of the folded totals
 * and the rows appended since; sum by tutorial to read a figure (as the 0016 roll-ups).
 */
export interface TutorialStatisticsView {
  tutorial_id: number;
  completions: number;
  ratings: number;
  rating_sum: number;
  completed_time_sum: number;
}

export interface TutorialProgressTable {
  tutorial_id: number;
  user_id: number;
  viewed_chapter_ids: Generated<number[]>;
  /** Seconds. */
  time_spent: Generated<number>;
  current_chapter_id: number | null;
  /** Seconds. */
  current_position: Generated<number>;
  last_viewed_at: Timestamp;
  completed_at: NullableTimestamp;
  rating: number | null;
  comment: string | null;
  certificate_code: string | null;
  created_at: Timestamp;
}

export type EventType = Schemas['EventType'];
export type EventResourceType = Schemas['EventResource']['type'];
export type WebhookDeliveryStatus = Schemas['WebhookDeliveryStatus'];

/** The event log and outbox of webhooks (migration 0015). `id` is internal; `public_id` is the event's id. */
export interface EventsTable {
  id: Generated<number>;
  public_id: string;
  type: EventType;
  resource_type: EventResourceType;
  resource_id: number;
  occurred_at: Timestamp;
  data: Json<Record<string, unknown>>;
}

export interface WebhookSubscriptionsTable {
  id: Generated<number>;
  url: string;
  description: string | null;
  event_types: Json<EventType[]>;
  /** The signing secret (`whsec_...`), sealed with the key `secret_key_id` names (modules/webhooks/secrets.ts). */
  secret: string;
  /** The id of the key that sealed `secret`; null for a secret still in plain text (sealed at the next start). */
  secret_key_id: string | null;
  is_active: Generated<boolean>;
  failing_since: NullableTimestamp;
  disabled_at: NullableTimestamp;
  disabled_reason: string | null;
  created_by: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WebhookDeliveriesTable {
  id: Generated<number>;
  event_id: number;
  subscription_id: number;
  status: Generated<WebhookDeliveryStatus>;
  attempts: Generated<number>;
  next_attempt_at: Timestamp;
  last_attempt_at: NullableTimestamp;
  response_status: number | null;
  latency_ms: number | null;
  last_error: string | null;
  delivered_at: NullableTimestamp;
  created_at: Timestamp;
}

/** E-mails to administrators (an endpoint disabled), sent by the notification worker. */
export interface AdminNotificationsTable {
  id: Generated<number>;
  recipient: string;
  subject: string;
  body: string;
  status: Generated<'QUEUED' | 'SENT' | 'FAILED'>;
  attempts: Generated<number>;
  next_attempt_at: Timestamp;
  last_error: string | null;
  sent_at: NullableTimestamp;
  created_at: Timestamp;
}

export interface ApiKeysTable {
  id: Generated<number>;
  name: string;
  prefix: string;
  /** sha256 of the key, hexadecimal. */
  key_hash: string;
  /** The key's service account. */
  user_id: number;
  /** The access level the key was created with: it acts with the lesser of this and its account's current level. */
  access_level_cap: AccessLevel;
  created_by: number | null;
  created_at: Timestamp;
  last_used_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
}

/** The audit log (migration 0023): append-only, written by lib/audit.ts in the change's transaction. */
export interface AuditLogTable {
  id: Generated<number>;
  occurred_at: Timestamp;
  action: string;
  actor_user_id: number | null;
  actor_username: string | null;
  actor_role: AccessLevel | null;
  api_key_id: number | null;
  resource_type: string;
  resource_id: number | null;
  before: NullableJson<Record<string, unknown>>;
  after: NullableJson<Record<string, unknown>>;
  details: NullableJson<Record<string, unknown>>;
  ip: string | null;
  user_agent: string | null;
  request_id: string | null;
}

/** Who signed for a transport, at most one per transport (0025). */
export interface ProofsOfDeliveryTable {
  id: Generated<number>;
  transport_id: number;
  receiver_name: string;
  note: string | null;
  delivered_at: Timestamp;
  /** Whether recording it moved the transport from IN_PROGRESS to COMPLETED. */
  completed_transport: Generated<boolean>;
  recorded_by: number;
}

/** The signature (position 0) and photos (1..6) of a proof of delivery, in the file store (0025). */
export interface ProofOfDeliveryFilesTable {
  id: Generated<number>;
  proof_id: number;
  position: number;
  filename: string;
  mime_type: string;
  size: number;
  content: Bytes | null;
  storage_key: string | null;
}

/** Public tracking links: the SHA-256 of each token, never the token (0025). */
export interface TrackingLinksTable {
  id: Generated<number>;
  transport_id: number;
  token_hash: string;
  expires_at: RequiredTimestamp;
  revoked_at: NullableTimestamp;
  created_by: number;
  created_at: Timestamp;
}

export interface Database {
  roles: RolesTable;
  countries: CountriesTable;
  states: StatesTable;
  organizations: OrganizationsTable;
  actors: ActorsTable;
  users: UsersTable;
  login_throttles: LoginThrottlesTable;
  sessions: SessionsTable;
  categories: CategoriesTable;
  tags: TagsTable;
  complaint_types: ComplaintTypesTable;
  vehicle_types: VehicleTypesTable;
  transports: TransportsTable;
  transport_status_history: TransportStatusHistoryTable;
  transport_documents: TransportDocumentsTable;
  transport_positions: TransportPositionsTable;
  transport_last_positions: TransportLastPositionsTable;
  transport_milestones: TransportMilestonesTable;
  transport_live_events: TransportLiveEventsTable;
  transport_live_sweeps: TransportLiveSweepsTable;
  live_stream_leases: LiveStreamLeasesTable;
  file_deletions: FileDeletionsTable;
  complaints: ComplaintsTable;
  complaint_status_history: ComplaintStatusHistoryTable;
  complaint_notifications: ComplaintNotificationsTable;
  complaint_attachments: ComplaintAttachmentsTable;
  forum_topics: ForumTopicsTable;
  forum_topic_tags: ForumTopicTagsTable;
  forum_messages: ForumMessagesTable;
  forum_votes: ForumVotesTable;
  forum_topic_likes: ForumTopicLikesTable;
  forum_subscriptions: ForumSubscriptionsTable;
  forum_reports: ForumReportsTable;
  forum_category_counts: ForumCategoryCountsTable;
  forum_report_counts: ForumReportCountsTable;
  counter_deltas: CounterDeltasTable;
  transport_user_counts: TransportUserCountsTable;
  transport_day_counts: TransportDayCountsTable;
  complaint_user_counts: ComplaintUserCountsTable;
  complaint_day_counts: ComplaintDayCountsTable;
  user_day_counts: UserDayCountsTable;
  user_month_counts: UserMonthCountsTable;
  actor_counts: ActorCountsTable;
  announcements: AnnouncementsTable;
  announcement_tags: AnnouncementTagsTable;
  announcement_reads: AnnouncementReadsTable;
  announcement_likes: AnnouncementLikesTable;
  tutorials: TutorialsTable;
  tutorial_chapters: TutorialChaptersTable;
  tutorial_prerequisites: TutorialPrerequisitesTable;
  tutorial_tags: TutorialTagsTable;
  tutorial_progress: TutorialProgressTable;
  tutorial_statistics: TutorialStatisticsView;
  certificates: CertificatesTable;
  content_views: ContentViewsTable;
  idempotency_keys: IdempotencyKeysTable;
  events: EventsTable;
  webhook_subscriptions: WebhookSubscriptionsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  admin_notifications: AdminNotificationsTable;
  api_keys: ApiKeysTable;
  audit_log: AuditLogTable;
  proofs_of_delivery: ProofsOfDeliveryTable;
  proof_of_delivery_files: ProofOfDeliveryFilesTable;
  tracking_links: TrackingLinksTable;
}

export type Role = Selectable<RolesTable>;
export type Country = Selectable<CountriesTable>;
export type State = Selectable<StatesTable>;
export type Organization = Selectable<OrganizationsTable>;
export type NewOrganization = Insertable<OrganizationsTable>;
export type OrganizationUpdate = Updateable<OrganizationsTable>;
export type Actor = Selectable<ActorsTable>;
export type NewActor = Insertable<ActorsTable>;
export type ActorUpdate = Updateable<ActorsTable>;
export type User = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type Session = Selectable<SessionsTable>;
export type Category = Selectable<CategoriesTable>;
export type Tag = Selectable<TagsTable>;
export type ComplaintType = Selectable<ComplaintTypesTable>;
export type VehicleType = Selectable<VehicleTypesTable>;
export type Transport = Selectable<TransportsTable>;
export type TransportDocument = Selectable<TransportDocumentsTable>;
export type NewTransportDocument = Insertable<TransportDocumentsTable>;
export type Complaint = Selectable<ComplaintsTable>;
export type NewComplaint = Insertable<ComplaintsTable>;
export type ComplaintUpdate = Updateable<ComplaintsTable>;
export type ComplaintStatusHistoryEntry = Selectable<ComplaintStatusHistoryTable>;
export type ComplaintNotification = Selectable<ComplaintNotificationsTable>;
export type ComplaintAttachment = Selectable<ComplaintAttachmentsTable>;
export type ForumTopic = Selectable<ForumTopicsTable>;
export type ForumMessage = Selectable<ForumMessagesTable>;
export type Announcement = Selectable<AnnouncementsTable>;
export type NewAnnouncement = Insertable<AnnouncementsTable>;
export type AnnouncementUpdate = Updateable<AnnouncementsTable>;
export type Tutorial = Selectable<TutorialsTable>;
export type TutorialChapter = Selectable<TutorialChaptersTable>;
