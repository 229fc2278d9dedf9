/**
 * The address of a user's avatar, or null without one. The upload time is in the query so that
 * a new picture gets a new address (clients and caches never show a stale one).
 */
export const avatarUrl = (userId: number, updatedAt: Date | string | null): string | null =>
  updatedAt === null ? null : `/trade/users/${userId}/avatar?v=${(updatedAt instanceof Date ? updatedAt : new Date(updatedAt)).getTime()}`;
