import { type Kysely, sql } from 'kysely';

/**
 * Workflows of the specification's roles:
 * - two-level transport validation: the level reached by a pending transport, and the level of
 *   each history entry;
 * - the complaint notifications become an outbox: delivery attempts, errors, next attempt, sent time;
 * - certificates are frozen records of their own, kept (with the tutorial's title) when the
 *   tutorial or the progress row goes away; a trigger files every certificate code issued;
 * - user avatars (bytes and their sniffed type) and bios;
 * - content views counted once per user per day (announcements, forum topics, tutorials);
 * - announcements lose their share and comment counters (no operation ever moved them).
 */
const statements = [
  `alter table transports add column validation_level smallint not null default 0
    constraint transports_validation_level_check check (validation_level between 0 and 2)`,
  `alter table transports add constraint transports_validation_status_check
    check ((status = 'PENDING' and validation_level < 2) or (status <> 'PENDING' and validation_level in (0, 2)))`,
  `update transports set validation_level = 2 where status in ('VALIDATED', 'IN_PROGRESS', 'COMPLETED', 'ON_HOLD', 'ARCHIVED')`,
  `alter table transport_status_history add column validation_level smallint
    constraint transport_status_history_validation_level_check check (validation_level between 1 and 2)`,

  `alter table complaint_notifications
    add column attempts integer not null default 0 constraint complaint_notifications_attempts_check check (attempts >= 0),
    add column last_error text,
    add column next_attempt_at timestamptz not null default now(),
    add column sent_at timestamptz`,
  `alter table complaint_notifications add constraint complaint_notifications_sent_check
    check ((status = 'SENT') = (sent_at is not null))`,
  `create index complaint_notifications_due_idx on complaint_notifications (next_attempt_at, id) where status = 'QUEUED'`,

  `create table certificates (
    code text primary key,
    user_id integer references users (id) on delete set null,
    tutorial_id integer references tutorials (id) on delete set null,
    tutorial_title text not null,
    holder_first_name text not null,
    holder_last_name text not null,
    issued_at timestamptz not null
  )`,
  `create function file_certificate() returns trigger language plpgsql as $$
    begin
      if new.certificate_code is not null and new.completed_at is not null then
        insert into certificates (code, user_id, tutorial_id, tutorial_title, holder_first_name, holder_last_name, issued_at)
        select new.certificate_code, u.id, t.id, t.title, coalesce(a.first_name, u.username), coalesce(a.last_name, ''), new.completed_at
          from users u cross join tutorials t left join actors a on a.id = u.actor_id
         where u.id = new.user_id and t.id = new.tutorial_id
        on conflict (code) do nothing;
      end if;
      return new;
    end $$`,
  `create trigger tutorial_progress_file_certificate after insert or update of certificate_code on tutorial_progress
    for each row execute function file_certificate()`,
  `insert into certificates (code, user_id, tutorial_id, tutorial_title, holder_first_name, holder_last_name, issued_at)
    select p.certificate_code, u.id, t.id, t.title, coalesce(a.first_name, u.username), coalesce(a.last_name, ''), p.completed_at
      from tutorial_progress p join users u on u.id = p.user_id join tutorials t on t.id = p.tutorial_id
      left join actors a on a.id = u.actor_id
     where p.certificate_code is not null and p.completed_at is not null`,

  `alter table users
    add column bio text constraint users_bio_check check (char_length(bio) <= 1000),
    add column avatar bytea,
    add column avatar_mime text constraint users_avatar_mime_check check (avatar_mime in ('image/png', 'image/jpeg', 'image/webp')),
    add column avatar_updated_at timestamptz`,
  `alter table users add constraint users_avatar_check
    check ((avatar is null) = (avatar_mime is null) and (avatar is null) = (avatar_updated_at is null))`,

  `create table content_views (
    resource_type text not null constraint content_views_resource_type_check
      check (resource_type in ('ANNOUNCEMENT', 'FORUM_TOPIC', 'TUTORIAL')),
    resource_id integer not null,
    user_id integer not null references users (id) on delete cascade,
    day date not null,
    constraint content_views_pkey primary key (resource_type, resource_id, user_id, day)
  )`,
  `alter table tutorials add column views_count integer not null default 0
    constraint tutorials_views_count_check check (views_count >= 0)`,
  // Announcements have no share or comment operation: their counters left the contract.
  `alter table announcements drop column shares_count, drop column comments_count`,
  // Until now a tutorial's views were its users with a progress record: the counter starts there.
  `update tutorials t set views_count = (select count(*) from tutorial_progress p where p.tutorial_id = t.id)`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const statement of [
    `alter table tutorials drop column views_count`,
    `alter table announcements add column shares_count integer not null default 0, add column comments_count integer not null default 0`,
    `drop table content_views`,
    `alter table users drop constraint users_avatar_check, drop column avatar_updated_at, drop column avatar_mime, drop column avatar, drop column bio`,
    `drop trigger tutorial_progress_file_certificate on tutorial_progress`,
    `drop function file_certificate()`,
    `drop table certificates`,
    `drop index complaint_notifications_due_idx`,
    `alter table complaint_notifications drop constraint complaint_notifications_sent_check,
      drop column sent_at, drop column next_attempt_at, drop column last_error, drop column attempts`,
    `alter table transport_status_history drop column validation_level`,
    `alter table transports drop constraint transports_validation_status_check, drop column validation_level`,
  ]) {
    await sql.raw(statement).execute(db);
  }
}
