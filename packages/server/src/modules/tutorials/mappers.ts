import { avatarUrl } from '../../lib/avatar.js';
import type { components } from '@transport-ops/contract';
import type { AttachmentJson, ImageJson, TutorialChapter, VideoJson } from '../../db/schema.js';
import { iso } from '../../lib/time.js';
import type { TagRow, TutorialRow } from './query-repository.js';

type S = components['schemas'];

// Same fallbacks as the configuration lists, for entries stored without a colour or an icon.
const DEFAULT_COLOR = '#607D8B';
const DEFAULT_ICON = 'folder';

export function toCategoryRef(row: TutorialRow): S['CategoryRef'] {
  return {
    id: row.category_id,
    name: row.category_name,
    description: row.category_description ?? '',
    color: row.category_color ?? DEFAULT_COLOR,
    icon: row.category_icon ?? DEFAULT_ICON,
  };
}

export function toAuthor(row: TutorialRow): S['TutorialAuthor'] {
  return {
    id: row.author_id,
    firstName: row.author_first_name ?? row.author_username,
    lastName: row.author_last_name ?? '',
    role: row.author_role,
    bio: row.author_bio,
    avatar: avatarUrl(row.author_id, row.author_avatar_at),
  };
}

export function toStatistics(row: TutorialRow): S['TutorialStatistics'] {
  return {
    viewsCount: row.views_count ?? 0,
    completionsCount: row.completions_count ?? 0,
    averageRating: row.average_rating ?? null,
    ratingsCount: row.ratings_count ?? 0,
    averageCompletionTime: row.average_completion_time ?? null,
  };
}

export const toTagRefs = (tags: TagRow[] | undefined): S['TagRef'][] =>
  (tags ?? []).map((g) => ({ id: g.id, name: g.name, color: g.color ?? DEFAULT_COLOR }));

export function toImage(image: ImageJson | null): S['MediaImage'] | null {
  if (image === null) return null;
  return { url: image.url, alt: image.alt ?? null, width: image.width ?? null, height: image.height ?? null };
}

export function toVideo(video: VideoJson | null): S['TutorialVideo'] | null {
  if (video === null) return null;
  return {
    url: video.url,
    duration: video.duration ?? 0,
    size: video.size ?? null,
    quality: video.quality ?? null,
    subtitles: (video.subtitles ?? []).map((s) => ({ language: s.language, url: s.url })),
  };
}

export const toAttachments = (attachments: AttachmentJson[]): S['Attachment'][] =>
  attachments.map((a) => ({
    id: Number(a.id),
    filename: a.filename,
    type: a.type,
    size: a.size,
    url: a.url,
    description: a.description ?? null,
  }));

export type ChapterRow = Pick<TutorialChapter, 'id' | 'title' | 'start_time' | 'duration' | 'description'>;

export const toChapters = (rows: ChapterRow[]): S['TutorialChapter'][] =>
  rows.map((c) => ({ id: c.id, title: c.title, startTime: c.start_time, duration: c.duration, description: c.description }));

/** The fields every tutorial shape shares. */
function common(row: TutorialRow) {
  return {
    id: row.id,
    publicId: row.public_id,
    title: row.title,
    summary: row.summary,
    difficulty: row.difficulty,
    duration: row.duration,
    estimatedTime: row.estimated_time,
    category: toCategoryRef(row),
    author: toAuthor(row),
    statistics: toStatistics(row),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export function toListItem(
  row: TutorialRow & { my_completed_at: Date | null; my_last_viewed_at: Date | null },
  tags: TagRow[] | undefined,
): S['TutorialListItem'] {
  return Object.assign({}, common(row), {
    description: row.description ?? '',
    thumbnail: toImage(row.thumbnail),
    tags: toTagRefs(tags),
    isCompleted: row.my_completed_at !== null,
    lastViewedAt: iso(row.my_last_viewed_at),
  });
}

export function toAdminListItem(
  row: TutorialRow & { chapters_count: number; prerequisites_count: number },
  tags: TagRow[] | undefined,
): S['TutorialAdminListItem'] {
  return Object.assign({}, common(row), {
    status: row.status,
    tags: toTagRefs(tags),
    chaptersCount: row.chapters_count,
    prerequisitesCount: row.prerequisites_count,
  });
}

/** Every field but the per-user and per-shape ones (prerequisites, related tutorials, progress). */
export function toFullTutorial(
  row: TutorialRow & { content: string | null; video: VideoJson | null; attachments: AttachmentJson[] },
  tags: TagRow[] | undefined,
  chapters: ChapterRow[],
) {
  return Object.assign({}, common(row), {
    description: row.description ?? '',
    content: row.content ?? '',
    thumbnail: toImage(row.thumbnail),
    video: toVideo(row.video),
    attachments: toAttachments(row.attachments),
    chapters: toChapters(chapters),
    tags: toTagRefs(tags),
  });
}

/** A tutorial's fields as the audit log keeps them: named as in the create and update bodies. */
export const auditedFields = (t: S['Tutorial']) => ({
  title: t.title,
  description: t.description,
  summary: t.summary,
  content: t.content,
  difficulty: t.difficulty,
  estimatedTime: t.estimatedTime,
  status: t.status,
  categoryId: t.category.id,
  tagIds: t.tags.map((tag) => tag.id),
  thumbnail: t.thumbnail,
  video: t.video,
  attachments: t.attachments,
  chapters: t.chapters.map(({ title, startTime, duration, description }) => ({ title, startTime, duration, description })),
  prerequisiteIds: t.prerequisites.map((p) => p.id),
});
