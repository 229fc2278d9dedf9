import { type Kysely, sql } from 'kysely';
import type { AnnouncementStatus, Database, Difficulty, Priority, TopicStatus, VoteKind } from './schema.js';
import { type Clock, need, type SeedRefs, type StaffKey } from './seed-organization.js';

/* Demo forum, announcements and tutorials. Stored counters are recomputed from the rows at the end. */

interface MessageSeed {
  key: string;
  parent: string | null;
  by: StaffKey;
  content: string;
  hoursAfter: number;
}
interface TopicSeed {
  by: StaffKey;
  title: string;
  description: string;
  category: string;
  tags: string[];
  status: TopicStatus;
  views: number;
  daysAgo: number;
  messages: MessageSeed[];
  votes: [string, StaffKey, VoteKind][];
  likes: StaffKey[];
  subscribers: StaffKey[];
}

// The first message of each topic is its main message (same content as the topic).
const TOPICS: TopicSeed[] = [
  {
    by: 'agent',
    title: 'Best route from Casablanca to Dakar in the rainy season',
    description: 'Advice wanted on the coastal corridor.',
    category: 'Routes and logistics',
    tags: ['route-planning', 'tips'],
    status: 'ACTIVE',
    views: 42,
    daysAgo: 20,
    messages: [
      {
        key: 'a0',
        parent: null,
        by: 'agent',
        hoursAfter: 0,
        content: 'We have three convoys to Dakar next month. Which route do you recommend when the inland roads flood?',
      },
      {
        key: 'a1',
        parent: 'a0',
        by: 'agent2',
        hoursAfter: 2,
        content: 'Take the coastal road through Nouakchott; the inland road floods after heavy rain.',
      },
      { key: 'a2', parent: 'a1', by: 'manager', hoursAfter: 5, content: 'Agreed, and plan an extra day at the Rosso border crossing.' },
      {
        key: 'a3',
        parent: 'a0',
        by: 'supervisor',
        hoursAfter: 8,
        content: 'Please record any delay on the transport so that complaints can refer to it.',
      },
      { key: 'a4', parent: 'a2', by: 'agent', hoursAfter: 26, content: 'Thanks, that matches what our drivers saw last year.' },
    ],
    votes: [
      ['a0', 'agent2', 'LIKE'],
      ['a0', 'manager', 'LIKE'],
      ['a1', 'agent', 'LIKE'],
      ['a1', 'manager', 'LIKE'],
      ['a1', 'supervisor', 'DISLIKE'],
      ['a2', 'agent', 'LIKE'],
      ['a3', 'agent', 'LIKE'],
    ],
    likes: ['agent2', 'manager', 'supervisor'],
    subscribers: ['agent', 'agent2'],
  },
  {
    by: 'manager',
    title: 'New axle-load limits: how are your teams adapting?',
    description: 'Sharing practices after the regulation change.',
    category: 'Regulations',
    tags: ['regulation', 'safety'],
    status: 'ACTIVE',
    views: 27,
    daysAgo: 10,
    messages: [
      {
        key: 'b0',
        parent: null,
        by: 'manager',
        hoursAfter: 0,
        content: 'The new axle-load limits apply from this month. How do you split heavy loads in your teams?',
      },
      {
        key: 'b1',
        parent: 'b0',
        by: 'agent',
        hoursAfter: 3,
        content: 'We now split anything above 38 t across two rigid trucks and book them together.',
      },
      {
        key: 'b2',
        parent: 'b0',
        by: 'agent2',
        hoursAfter: 4,
        content: 'Just ignore the limits at night, nobody checks the scales after 10 pm.',
      },
      {
        key: 'b3',
        parent: 'b2',
        by: 'manager',
        hoursAfter: 6,
        content: 'Please do not: the fines are heavy and the insurance will not cover an overloaded truck.',
      },
    ],
    votes: [
      ['b0', 'agent', 'LIKE'],
      ['b1', 'manager', 'LIKE'],
      ['b1', 'agent2', 'LIKE'],
      ['b2', 'agent', 'DISLIKE'],
      ['b2', 'manager', 'DISLIKE'],
    ],
    likes: ['agent'],
    subscribers: ['manager'],
  },
  {
    by: 'agent2',
    title: 'Cannot upload insurance documents larger than 10 MB',
    description: 'Upload refused for scanned certificates.',
    category: 'General discussion',
    tags: ['platform'],
    status: 'CLOSED',
    views: 15,
    daysAgo: 30,
    messages: [
      {
        key: 'c0',
        parent: null,
        by: 'agent2',
        hoursAfter: 0,
        content: 'My scanned insurance certificate is 14 MB and the upload is refused. Is there a workaround?',
      },
      {
        key: 'c1',
        parent: 'c0',
        by: 'admin',
        hoursAfter: 1,
        content: 'The limit is 10 MB per file. Scan to PDF at 300 dpi in grey levels and it will fit. Closing this topic.',
      },
    ],
    votes: [['c1', 'agent2', 'LIKE']],
    likes: [],
    subscribers: ['agent2'],
  },
  {
    by: 'supervisor',
    title: 'Monthly fuel consumption benchmarks',
    description: 'Litres per 100 km by vehicle type.',
    category: 'Vehicles and maintenance',
    tags: ['fuel', 'maintenance'],
    status: 'ACTIVE',
    views: 8,
    daysAgo: 3,
    messages: [
      {
        key: 'd0',
        parent: null,
        by: 'supervisor',
        hoursAfter: 0,
        content: "Here are last month's averages: semi-trailers 32 l/100 km, rigid trucks 27 l/100 km, vans 11 l/100 km. Share yours!",
      },
    ],
    votes: [],
    likes: [],
    subscribers: ['supervisor'],
  },
];

async function seedForum(db: Kysely<Database>, refs: SeedRefs, at: Clock): Promise<void> {
  const messageIds = new Map<string, number>();
  for (const t of TOPICS) {
    const createdAt = at(t.daysAgo, 10);
    const main = t.messages[0]!;
    const topic = await db
      .insertInto('forum_topics')
      .values({
        title: t.title,
        description: t.description,
        content: main.content,
        status: t.status,
        category_id: need(refs.categories.FORUM, t.category),
        author_id: refs.users[t.by],
        views_count: t.views,
        created_at: createdAt,
        updated_at: createdAt,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    if (t.tags.length > 0) {
      await db
        .insertInto('forum_topic_tags')
        .values(t.tags.map((tag) => ({ topic_id: topic.id, tag_id: need(refs.tags, tag) })))
        .execute();
    }
    for (const m of t.messages) {
      const when = new Date(createdAt.getTime() + m.hoursAfter * 3_600_000);
      const row = await db
        .insertInto('forum_messages')
        .values({
          topic_id: topic.id,
          parent_id: m.parent === null ? null : need(messageIds, m.parent),
          author_id: refs.users[m.by],
          content: m.content,
          is_main_message: m === main,
          created_at: when,
          updated_at: when,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      messageIds.set(m.key, row.id);
    }
    for (const [key, by, vote] of t.votes) {
      await db
        .insertInto('forum_votes')
        .values({ message_id: need(messageIds, key), user_id: refs.users[by], vote, created_at: at(t.daysAgo - 1) })
        .execute();
    }
    for (const by of t.likes) {
      await db
        .insertInto('forum_topic_likes')
        .values({ topic_id: topic.id, user_id: refs.users[by], created_at: at(t.daysAgo - 1) })
        .execute();
    }
    for (const by of t.subscribers) {
      await db.insertInto('forum_subscriptions').values({ topic_id: topic.id, user_id: refs.users[by], created_at: createdAt }).execute();
    }
  }
  await db
    .insertInto('forum_reports')
    .values({
      message_id: need(messageIds, 'b2'),
      reporter_id: refs.users.agent,
      reason: 'FALSE_INFORMATION',
      comment: 'Encourages drivers to break the axle-load regulation.',
      status: 'PENDING',
      created_at: at(9, 14),
    })
    .execute();
}

interface AnnouncementSeed {
  title: string;
  summary: string;
  content: string;
  status: AnnouncementStatus;
  priority: Priority;
  category: string;
  by: StaffKey;
  publishedDaysAgo: number | null;
  expiresInDays: number | null;
  global: boolean;
  userTypes?: string[];
  regions?: string[];
  tags: string[];
  image?: boolean;
  reads: StaffKey[];
  likes: StaffKey[];
}

const ANNOUNCEMENTS: AnnouncementSeed[] = [
  {
    title: 'Welcome to the new Transport Operations platform',
    summary: 'Transports, complaints, forum and tutorials in one place.',
    content: '## Welcome\n\nThe platform replaces the old portal. Start with the **Getting started** tutorial.',
    status: 'PUBLISHED',
    priority: 'MEDIUM',
    category: 'Company news',
    by: 'admin',
    publishedDaysAgo: 14,
    expiresInDays: null,
    global: true,
    tags: ['platform'],
    image: true,
    reads: ['agent', 'agent2', 'manager', 'supervisor'],
    likes: ['agent', 'manager'],
  },
  {
    title: 'A7 motorway closed near Valence: reroute shipments',
    summary: 'Night closures between Valence and Montélimar until further notice.',
    content: 'The A7 is closed every night from 9 pm to 6 am between exits 15 and 17. Use the N7 and allow **45 extra minutes**.',
    status: 'PUBLISHED',
    priority: 'HIGH',
    category: 'Safety',
    by: 'supervisor',
    publishedDaysAgo: 2,
    expiresInDays: 30,
    global: true,
    tags: ['urgent', 'safety', 'route-planning'],
    reads: ['agent'],
    likes: ['agent'],
  },
  {
    title: 'Supervisors: quarterly validation targets',
    summary: 'Level-2 validations must be done within 24 hours.',
    content: 'From this quarter, level-2 validations are expected within 24 hours of the level-1 validation.',
    status: 'PUBLISHED',
    priority: 'MEDIUM',
    category: 'Company news',
    by: 'admin',
    publishedDaysAgo: 5,
    expiresInDays: null,
    global: false,
    userTypes: ['SUPERVISOR'],
    tags: [],
    reads: ['supervisor'],
    likes: [],
  },
  {
    title: 'Port of Dakar: new customs pre-declaration',
    summary: 'Pre-declare every container 48 hours before arrival.',
    content: 'Dakar customs now require an electronic pre-declaration 48 hours before a container reaches the port.',
    status: 'PUBLISHED',
    priority: 'HIGH',
    category: 'Regulations',
    by: 'supervisor',
    publishedDaysAgo: 6,
    expiresInDays: 60,
    global: false,
    regions: ['SN'],
    tags: ['customs', 'regulation'],
    reads: [],
    likes: [],
  },
  {
    title: 'Fuel-saving driving: five habits',
    summary: 'Small changes that cut fuel use by up to 10%.',
    content: '1. Anticipate.\n2. Use cruise control.\n3. Check tyre pressure weekly.\n4. Limit idling.\n5. Plan routes to avoid peaks.',
    status: 'PUBLISHED',
    priority: 'LOW',
    category: 'Company news',
    by: 'supervisor',
    publishedDaysAgo: 20,
    expiresInDays: null,
    global: true,
    tags: ['tips', 'fuel'],
    reads: ['agent'],
    likes: ['agent'],
  },
  {
    title: 'Winter tyre campaign',
    summary: 'Book your winter tyre fitting before 1 December.',
    content: 'The winter tyre campaign is over.',
    status: 'PUBLISHED',
    priority: 'MEDIUM',
    category: 'Safety',
    by: 'admin',
    publishedDaysAgo: 60,
    expiresInDays: -30,
    global: true,
    tags: ['safety', 'maintenance'],
    reads: ['manager'],
    likes: [],
  },
  {
    title: 'Maintenance window for the platform',
    summary: 'The platform will be unavailable for one hour.',
    content: 'Draft: date to be confirmed with the hosting provider.',
    status: 'DRAFT',
    priority: 'MEDIUM',
    category: 'System updates',
    by: 'admin',
    publishedDaysAgo: null,
    expiresInDays: null,
    global: true,
    tags: ['platform'],
    reads: [],
    likes: [],
  },
  {
    title: 'Old portal shutdown',
    summary: 'The old portal is closed.',
    content: 'The old portal was shut down; all data was migrated.',
    status: 'ARCHIVED',
    priority: 'LOW',
    category: 'System updates',
    by: 'admin',
    publishedDaysAgo: 90,
    expiresInDays: null,
    global: true,
    tags: [],
    reads: [],
    likes: [],
  },
];

async function seedAnnouncements(db: Kysely<Database>, refs: SeedRefs, at: Clock): Promise<void> {
  for (const a of ANNOUNCEMENTS) {
    const publishedAt = a.publishedDaysAgo === null ? null : at(a.publishedDaysAgo, 8);
    const createdAt = at((a.publishedDaysAgo ?? 1) + 1, 16);
    const row = await db
      .insertInto('announcements')
      .values({
        title: a.title,
        summary: a.summary,
        content: a.content,
        status: a.status,
        priority: a.priority,
        category_id: need(refs.categories.ANNOUNCEMENT, a.category),
        author_id: refs.users[a.by],
        featured_image: a.image
          ? JSON.stringify({
              url: 'https://cdn.transport-ops.example/images/welcome.jpg',
              alt: 'Trucks at a logistics hub',
              width: 1200,
              height: 630,
            })
          : null,
        attachments: '[]',
        target_user_types: a.userTypes ?? [],
        target_regions: a.regions ?? [],
        is_global: a.global,
        published_at: publishedAt,
        expires_at: a.expiresInDays === null || publishedAt === null ? null : at(-a.expiresInDays, 23),
        created_at: createdAt,
        updated_at: publishedAt ?? createdAt,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    if (a.tags.length > 0) {
      await db
        .insertInto('announcement_tags')
        .values(a.tags.map((t) => ({ announcement_id: row.id, tag_id: need(refs.tags, t) })))
        .execute();
    }
    for (const u of a.reads) {
      await db
        .insertInto('announcement_reads')
        .values({ announcement_id: row.id, user_id: refs.users[u], read_at: at(Math.max((a.publishedDaysAgo ?? 1) - 1, 1), 11) })
        .execute();
    }
    for (const u of a.likes) {
      await db
        .insertInto('announcement_likes')
        .values({ announcement_id: row.id, user_id: refs.users[u], created_at: at(Math.max((a.publishedDaysAgo ?? 1) - 1, 1), 12) })
        .execute();
    }
  }
}

interface TutorialSeed {
  key: string;
  title: string;
  description: string;
  summary: string;
  content: string;
  difficulty: Difficulty;
  minutes: number;
  category: string;
  status: 'DRAFT' | 'PUBLISHED';
  tags: string[];
  prerequisites: string[];
  chapters: [string, number, string][];
  daysAgo: number;
}

// Chapter durations (seconds) add up to the estimated time.
const TUTORIALS: TutorialSeed[] = [
  {
    key: 'start',
    title: 'Getting started with Transport Operations',
    description: 'Sign in, find your way around the dashboard and get help.',
    summary: 'Your first 15 minutes on the platform.',
    content: 'Sign in with your username, update your profile, open the dashboard, and use the forum when you are stuck.',
    difficulty: 'BEGINNER',
    minutes: 15,
    category: 'Getting started',
    status: 'PUBLISHED',
    tags: ['platform', 'training'],
    prerequisites: [],
    daysAgo: 60,
    chapters: [
      ['Signing in and your profile', 240, 'Log in, change your password, check your profile.'],
      ['Navigating the dashboard', 300, 'Lists, filters and search.'],
      ['Getting help in the forum', 360, 'Ask a question, reply and vote.'],
    ],
  },
  {
    key: 'transport',
    title: 'Registering a transport and its documents',
    description: 'Create a transport, attach the customer and upload the driving licence, registration and insurance.',
    summary: 'From loading point to validated transport.',
    content:
      'A transport starts as PENDING. Fill in the charger, vehicle type and loading point, then upload PDF, JPEG or PNG documents of up to 10 MB each.',
    difficulty: 'BEGINNER',
    minutes: 35,
    category: 'Transports',
    status: 'PUBLISHED',
    tags: ['training', 'customs'],
    prerequisites: ['start'],
    daysAgo: 50,
    chapters: [
      ['Creating the transport', 480, 'Required fields and the loading number.'],
      ['Choosing or creating the customer', 540, 'A customer needs an e-mail or a phone.'],
      ['Uploading documents', 600, 'Accepted types and sizes.'],
      ['Following the status', 480, 'Validation, start, completion.'],
    ],
  },
  {
    key: 'complaints',
    title: 'Handling customer complaints from filing to resolution',
    description: 'File a complaint on a transport, take it in charge and resolve it.',
    summary: 'The complaint life cycle, step by step.',
    content:
      'One complaint per transport. A complaint moves from PENDING to IN_PROGRESS when an agent takes it in charge, then to RESOLVED; the customer is notified.',
    difficulty: 'INTERMEDIATE',
    minutes: 45,
    category: 'Complaints',
    status: 'PUBLISHED',
    tags: ['training'],
    prerequisites: [],
    daysAgo: 40,
    chapters: [
      ['Filing a complaint', 600, 'Label, type, amount paid and time lost.'],
      ['Attachments and evidence', 720, 'Photos and reports.'],
      ['Taking a complaint in charge', 600, 'Assignment and status changes.'],
      ['Resolving and notifying', 780, 'Resolution and customer notification.'],
    ],
  },
  {
    key: 'convoys',
    title: 'Planning cross-border convoys',
    description: 'Border paperwork, axle-load limits and convoy timing across West Africa.',
    summary: 'Advanced planning for long-haul convoys.',
    content: 'Plan border crossings, customs pre-declarations and rest stops; respect axle-load limits in every country crossed.',
    difficulty: 'ADVANCED',
    minutes: 90,
    category: 'Transports',
    status: 'PUBLISHED',
    tags: ['route-planning', 'customs', 'regulation'],
    prerequisites: ['transport'],
    daysAgo: 20,
    chapters: [
      ['Customs and pre-declarations', 1800, 'Documents per country.'],
      ['Axle loads and permits', 1800, 'Splitting loads legally.'],
      ['Timing and rest stops', 1800, 'Driving hours and border queues.'],
    ],
  },
  {
    key: 'securing',
    title: 'Load securing and safety checks',
    description: 'Straps, blocking and the pre-departure checklist.',
    summary: 'Secure every load before departure.',
    content: 'Draft content: strapping rules and the pre-departure checklist.',
    difficulty: 'INTERMEDIATE',
    minutes: 25,
    category: 'Safety',
    status: 'DRAFT',
    tags: ['safety'],
    prerequisites: [],
    daysAgo: 5,
    chapters: [
      ['Why loads shift', 500, 'Forces during braking and turns.'],
      ['Strapping and blocking', 500, 'How many straps, where.'],
      ['Pre-departure checklist', 500, 'Five checks before leaving.'],
    ],
  },
];

async function seedTutorials(db: Kysely<Database>, refs: SeedRefs, at: Clock): Promise<void> {
  const tutorials = new Map<string, number>();
  const chapters = new Map<string, number[]>();
  for (const t of TUTORIALS) {
    const createdAt = at(t.daysAgo, 9);
    const totalSeconds = t.chapters.reduce((sum, [, d]) => sum + d, 0);
    const row = await db
      .insertInto('tutorials')
      .values({
        title: t.title,
        description: t.description,
        summary: t.summary,
        content: t.content,
        difficulty: t.difficulty,
        estimated_time: t.minutes,
        category_id: need(refs.categories.TUTORIAL, t.category),
        status: t.status,
        author_id: t.key === 'start' ? refs.users.admin : refs.users.supervisor,
        thumbnail: JSON.stringify({
          url: `https://cdn.transport-ops.example/tutorials/${t.key}.jpg`,
          alt: t.title,
          width: 640,
          height: 360,
        }),
        video: JSON.stringify({
          url: `https://media.transport-ops.example/tutorials/${t.key}.mp4`,
          duration: totalSeconds,
          size: totalSeconds * 50_000,
          quality: '1080p',
          subtitles: [
            { language: 'en', url: `https://media.transport-ops.example/tutorials/${t.key}.en.vtt` },
            { language: 'fr', url: `https://media.transport-ops.example/tutorials/${t.key}.fr.vtt` },
          ],
        }),
        attachments: '[]',
        created_at: createdAt,
        updated_at: createdAt,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    tutorials.set(t.key, row.id);
    let start = 0;
    const ids: number[] = [];
    for (const [i, [title, duration, description]] of t.chapters.entries()) {
      const chapter = await db
        .insertInto('tutorial_chapters')
        .values({
          tutorial_id: row.id,
          position: i + 1,
          title,
          start_time: start,
          duration,
          description,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      ids.push(chapter.id);
      start += duration;
    }
    chapters.set(t.key, ids);
    for (const p of t.prerequisites) {
      await db
        .insertInto('tutorial_prerequisites')
        .values({ tutorial_id: row.id, prerequisite_id: need(tutorials, p) })
        .execute();
    }
    if (t.tags.length > 0) {
      await db
        .insertInto('tutorial_tags')
        .values(t.tags.map((tag) => ({ tutorial_id: row.id, tag_id: need(refs.tags, tag) })))
        .execute();
    }
  }

  // [tutorial, user, chapters viewed, seconds spent, days ago, rating/comment/certificate when completed]
  const progress: [string, StaffKey, number, number, number, [number, string, string] | null][] = [
    ['start', 'agent', 3, 840, 10, [5, 'Clear and short.', 'DEMOSTART001']],
    ['start', 'manager', 3, 900, 8, [4, 'Useful for new team members.', 'DEMOSTART002']],
    ['start', 'agent2', 1, 200, 2, null],
    ['transport', 'manager', 2, 1000, 1, null],
  ];
  for (const [key, user, viewed, timeSpent, daysAgo, done] of progress) {
    const chapterIds = chapters.get(key)!.slice(0, viewed);
    const when = at(daysAgo, 15);
    await db
      .insertInto('tutorial_progress')
      .values({
        tutorial_id: need(tutorials, key),
        user_id: refs.users[user],
        viewed_chapter_ids: chapterIds,
        time_spent: timeSpent,
        current_chapter_id: chapterIds[chapterIds.length - 1] ?? null,
        current_position: 0,
        last_viewed_at: when,
        completed_at: done ? when : null,
        rating: done?.[0] ?? null,
        comment: done?.[1] ?? null,
        certificate_code: done?.[2] ?? null,
        created_at: at(daysAgo + 1, 15),
      })
      .execute();
  }
}

/** Brings every stored counter in line with the rows (votes, likes, replies, messages, reads). */
export async function recomputeCounters(db: Kysely<Database>): Promise<void> {
  await sql`update forum_messages m set
      likes_count = (select count(*) from forum_votes v where v.message_id = m.id and v.vote = 'LIKE'),
      dislikes_count = (select count(*) from forum_votes v where v.message_id = m.id and v.vote = 'DISLIKE'),
      replies_count = (select count(*) from forum_messages r where r.parent_id = m.id)`.execute(db);
  await sql`update forum_topics t set
      messages_count = (select count(*) from forum_messages m where m.topic_id = t.id and m.deleted_at is null),
      likes_count = (select count(*) from forum_topic_likes l where l.topic_id = t.id),
      last_message_at = coalesce((select max(m.created_at) from forum_messages m where m.topic_id = t.id), t.created_at)`.execute(db);
  await sql`update announcements a set
      likes_count = (select count(*) from announcement_likes l where l.announcement_id = a.id),
      views_count = (select count(*) from announcement_reads r where r.announcement_id = a.id)`.execute(db);
  await sql`update tutorials t set views_count = (select count(*) from tutorial_progress p where p.tutorial_id = t.id)`.execute(db);
}

export async function seedCommunity(db: Kysely<Database>, refs: SeedRefs, at: Clock): Promise<void> {
  await seedForum(db, refs, at);
  await seedAnnouncements(db, refs, at);
  await seedTutorials(db, refs, at);
  await recomputeCounters(db);
}
