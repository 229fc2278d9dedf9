import type { Db } from './query-repository.js';

/** Completed progress records with their certificate, holder and tutorial. */
function selectCertificates(db: Db) {
  return db
    .selectFrom('tutorial_progress as p')
    .innerJoin('tutorials as t', 't.id', 'p.tutorial_id')
    .innerJoin('users as u', 'u.id', 'p.user_id')
    .leftJoin('actors as a', 'a.id', 'u.actor_id')
    .select(['p.certificate_code', 'p.completed_at', 't.id as tutorial_id', 't.title', 'u.username', 'a.first_name', 'a.last_name'])
    .where('p.completed_at', 'is not', null)
    .where('p.certificate_code', 'is not', null);
}

type CertificateRow = NonNullable<Awaited<ReturnType<ReturnType<typeof selectCertificates>['executeTakeFirst']>>>;

function toCertificate(row: CertificateRow) {
  const firstName = row.first_name ?? row.username;
  const lastName = row.last_name ?? '';
  return {
    code: row.certificate_code!,
    completedAt: row.completed_at!,
    tutorialId: row.tutorial_id,
    tutorialTitle: row.title,
    firstName,
    lastName,
    holder: `${firstName} ${lastName}`.trim(),
  };
}

/**
 * The certificate behind a verification code, from the frozen record filed when it was issued:
 * it stays verifiable, with the names of that day, when the tutorial is archived or deleted
 * (`tutorialId` is then null) or the holder's progress is reset.
 */
export async function findCertificateByCode(db: Db, code: string) {
  const row = await db.selectFrom('certificates').selectAll().where('code', '=', code).executeTakeFirst();
  if (!row) return undefined;
  return {
    code: row.code,
    completedAt: row.issued_at,
    tutorialId: row.tutorial_id,
    tutorialTitle: row.tutorial_title,
    firstName: row.holder_first_name,
    lastName: row.holder_last_name,
  };
}

/**
 * The user's own certificate for a tutorial. A draft tutorial the user never completed is not
 * disclosed (TUTORIAL_NOT_FOUND, as for an unknown id).
 */
export async function findOwnCertificate(db: Db, tutorialId: number, userId: number) {
  const row = await selectCertificates(db).where('p.tutorial_id', '=', tutorialId).where('p.user_id', '=', userId).executeTakeFirst();
  if (row) return toCertificate(row);
  const tutorial = await db.selectFrom('tutorials').select('status').where('id', '=', tutorialId).executeTakeFirst();
  return tutorial?.status === 'PUBLISHED' ? ('CERTIFICATE_NOT_FOUND' as const) : ('TUTORIAL_NOT_FOUND' as const);
}
