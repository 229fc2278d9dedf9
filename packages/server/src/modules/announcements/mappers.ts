import { avatarUrl } from '../../lib/avatar.js';
import type { components } from '@transport-ops/contract';
import type { AnnouncementStatus, AttachmentJson, ImageJson } from '../../db/schema.js';
import { iso } from '../../lib/time.js';
import type { AnnouncementDetailRow, AnnouncementRow, CategoryRow, ImportantRow } from './repository.js';

type S = components['schemas'];
/** The shared (cacheable) part of a user-side answer: everything but the caller's own state. */
type Shared<T> = Omit<T, 'isRead' | 'userLiked'>;
export type SharedListItem = Shared<S['AnnouncementListItem']>;
export type SharedDetail = Shared<S['AnnouncementDetail']>;

/** `EXPIRED` is never stored: a published announcement past its expiry is reported so. */
export function reportedStatus(row: { status: AnnouncementStatus; expires_at: Date | string | null }, now: Date): AnnouncementStatus {
  return row.status === 'PUBLISHED' && row.expires_at !== null && new Date(row.expires_at) <= now ? 'EXPIRED' : row.status;
}

export function categoryRef(row: AnnouncementRow): S['CategoryRef'] {
  return {
    id: row.category_id ?? 0,
    name: row.category_name ?? '',
    description: row.category_description ?? '',
    color: row.category_color ?? '',
    icon: row.category_icon ?? '',
  };
}

export function authorOf(row: AnnouncementRow): S['AnnouncementAuthor'] {
  return {
    id: row.author_id,
    firstName: row.author_first_name ?? row.author_username,
    lastName: row.author_last_name ?? '',
    role: row.author_role,
    avatar: avatarUrl(row.author_id, row.author_avatar_at),
  };
}

export const tagsOf = (row: AnnouncementRow): S['TagRef'][] => row.tags.map((t) => ({ id: t.id, name: t.name, color: t.color ?? '' }));

export function imageOf(image: ImageJson | null): S['MediaImage'] | null {
  return image === null ? null : { url: image.url, alt: image.alt ?? null, width: image.width ?? null, height: image.height ?? null };
}

export function attachmentsOf(attachments: AttachmentJson[]): S['Attachment'][] {
  return attachments.map((a, index) => ({
    id: typeof a.id === 'number' ? a.id : index + 1,
    filename: a.filename,
    type: a.type,
    size: a.size,
    url: a.url,
    description: a.description ?? null,
  }));
}

export const targetingOf = (row: AnnouncementRow): S['AnnouncementTargeting'] => ({
  userTypes: row.target_user_types,
  regions: row.target_regions,
  isGlobal: row.is_global,
});

export const statisticsOf = (row: AnnouncementRow): S['AnnouncementStatistics'] => ({
  viewsCount: row.views_count,
  likesCount: row.likes_count,
});

/** A visible announcement as listed to a user (visible, so published and with a publication time). */
export function toListItem(row: AnnouncementRow): SharedListItem {
  return {
    id: row.id,
    publicId: row.public_id,
    title: row.title,
    summary: row.summary,
    status: 'PUBLISHED',
    priority: row.priority,
    category: categoryRef(row),
    featuredImage: imageOf(row.featured_image),
    tags: tagsOf(row),
    author: authorOf(row),
    viewsCount: row.views_count,
    likesCount: row.likes_count,
    publishedAt: iso(row.published_at ?? row.created_at),
    expiresAt: iso(row.expires_at),
  };
}

/**
 * A cached list item with the caller's own state. Built field by field: an object made by
 * spreading the item (`{ ...item, ...state }`) took the response serializer 2.6 times as long
 * (measured on a page of ten).
 */
export function withReaderState(item: SharedListItem, state: { isRead: boolean; userLiked: boolean }): S['AnnouncementListItem'] {
  return {
    id: item.id,
    publicId: item.publicId,
    title: item.title,
    summary: item.summary,
    status: item.status,
    priority: item.priority,
    category: item.category,
    featuredImage: item.featuredImage,
    tags: item.tags,
    author: item.author,
    viewsCount: item.viewsCount,
    likesCount: item.likesCount,
    isRead: state.isRead,
    userLiked: state.userLiked,
    publishedAt: item.publishedAt,
    expiresAt: item.expiresAt,
  };
}

/** What the user-side detail and the administrators' record share (they differ in status and publication time). */
function detailBody(row: AnnouncementDetailRow) {
  return {
    id: row.id,
    publicId: row.public_id,
    title: row.title,
    summary: row.summary,
    content: row.content,
    priority: row.priority,
    category: categoryRef(row),
    featuredImage: imageOf(row.featured_image),
    attachments: attachmentsOf(row.attachments),
    tags: tagsOf(row),
    author: authorOf(row),
    targeting: targetingOf(row),
    statistics: statisticsOf(row),
    viewsCount: row.views_count,
    likesCount: row.likes_count,
    expiresAt: iso(row.expires_at),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export const toDetail = (row: AnnouncementDetailRow): SharedDetail =>
  Object.assign({}, detailBody(row), {
    status: 'PUBLISHED' as const,
    publishedAt: iso(row.published_at ?? row.created_at),
  });

export const toAdmin = (row: AnnouncementDetailRow, now: Date): S['Announcement'] =>
  Object.assign({}, detailBody(row), {
    status: reportedStatus(row, now),
    publishedAt: iso(row.published_at),
  });

export function toAdminListItem(row: AnnouncementRow, now: Date): S['AnnouncementAdminListItem'] {
  return {
    id: row.id,
    publicId: row.public_id,
    title: row.title,
    summary: row.summary,
    status: reportedStatus(row, now),
    priority: row.priority,
    category: categoryRef(row),
    tags: tagsOf(row),
    author: authorOf(row),
    targeting: targetingOf(row),
    statistics: statisticsOf(row),
    publishedAt: iso(row.published_at),
    expiresAt: iso(row.expires_at),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export function toImportant(row: ImportantRow): S['AnnouncementImportantItem'] {
  return {
    id: row.id,
    title: row.title,
    summary: row.summary,
    priority: row.priority,
    category: { name: row.category_name ?? '', color: row.category_color ?? '', icon: row.category_icon ?? '' },
    publishedAt: iso(row.published_at ?? row.created_at),
    expiresAt: iso(row.expires_at),
  };
}

export function toCategory(row: CategoryRow): S['AnnouncementCategory'] {
  return {
    id: row.id,
    name: row.name,
    description: row.description ?? '',
    color: row.color ?? '',
    icon: row.icon ?? '',
    announcementsCount: Number(row.announcements_count ?? 0),
    isActive: row.is_active,
  };
}

/** An announcement's fields as the audit log compares them (lib/audit.ts), named as in the request bodies. */
export const auditedFields = (a: S['Announcement']) => ({
  title: a.title,
  summary: a.summary,
  content: a.content,
  status: a.status,
  priority: a.priority,
  categoryId: a.category.id,
  featuredImage: a.featuredImage,
  attachments: a.attachments,
  targeting: a.targeting,
  expiresAt: a.expiresAt,
  tagIds: a.tags.map((t) => t.id),
});
