import { emitEvent } from '../events/emit-repository.js';
import { AppError } from '../../lib/errors.js';
import type { ModuleHandlers } from '../../http/handlers.js';
import { pageMeta } from '../../lib/paging.js';
import { iso } from '../../lib/time.js';
import { caller } from '../../lib/identity.js';
import { adminTutorialHandlers } from './admin-handlers.js';
import { findCertificateByCode, findOwnCertificate } from './certificate-repository.js';
import { certificatePdf } from './certificate.js';
import { completeTutorial, recordProgress } from './progress-repository.js';
import { idList, tutorialNotFound } from './rules.js';
import { findPublishedDetail, listCategories, listPublished, recordView, searchPublished } from './repository.js';

const valueList = <T extends string>(text: string | undefined) => (text === undefined ? [] : ([...new Set(text.split(','))] as T[]));

type UserOps =
  | 'listTutorials'
  | 'getTutorialById'
  | 'completeTutorial'
  | 'recordTutorialProgress'
  | 'listTutorialCategories'
  | 'searchTutorials'
  | 'downloadTutorialCertificate'
  | 'verifyCertificate';

const userTutorialHandlers: ModuleHandlers<UserOps> = {
  async listTutorials(req) {
    const auth = caller(req);
    const q = req.query;
    const page = q.page ?? 1;
    const limit = q.limit ?? 10;
    const { data, total } = await listPublished(
      req.server.db,
      auth.userId,
      Object.assign({}, q, { page, limit, sortBy: q.sortBy ?? 'recent' }),
    );
    return { message: 'Tutorials retrieved successfully', result: { data, meta: pageMeta(total, page, limit) } };
  },

  async getTutorialById(req) {
    const auth = caller(req);
    const { db } = req.server;
    const { id } = req.params;
    if (!(await recordView(db, id, auth.userId))) throw tutorialNotFound(id);
    const tutorial = await findPublishedDetail(db, id, auth.userId);
    if (!tutorial) throw tutorialNotFound(id);
    return { message: 'Tutorial retrieved successfully', result: tutorial };
  },

  async recordTutorialProgress(req) {
    const auth = caller(req);
    const result = await req.server.db.transaction().execute((trx) => recordProgress(trx, req.params.id, auth.userId, req.body));
    return { message: 'Progress recorded', result };
  },

  async completeTutorial(req) {
    const auth = caller(req);
    const result = await req.server.db.transaction().execute(async (trx) => {
      const completion = await completeTutorial(trx, req.params.id, auth.userId, req.body);
      await emitEvent(trx, 'tutorial.completed', { type: 'tutorial', id: completion.tutorialId }, completion);
      return completion;
    });
    return { message: 'Tutorial completed successfully', result };
  },

  async listTutorialCategories(req) {
    caller(req);
    return { message: 'Tutorial categories retrieved successfully', result: await listCategories(req.server.db) };
  },

  async searchTutorials(req) {
    caller(req);
    const q = req.query;
    const page = q.page ?? 1;
    const limit = q.limit ?? 10;
    const filters = {
      difficulty: valueList<'BEGINNER' | 'INTERMEDIATE' | 'ADVANCED'>(q.difficulty),
      duration: valueList<'SHORT' | 'MEDIUM' | 'LONG'>(q.duration),
      tags: idList(q.tags),
    };
    const { data, total } = await searchPublished(req.server.db, Object.assign({}, q, { page, limit }));
    return { message: 'Search completed', result: { query: q.q, filters, meta: pageMeta(total, page, limit), data } };
  },

  async downloadTutorialCertificate(req) {
    const auth = caller(req);
    const { id } = req.params;
    const found = await findOwnCertificate(req.server.db, id, auth.userId);
    if (found === 'TUTORIAL_NOT_FOUND') throw tutorialNotFound(id);
    if (found === 'CERTIFICATE_NOT_FOUND') {
      throw new AppError('CERTIFICATE_NOT_FOUND', {}, 'No certificate for this tutorial; complete it first');
    }
    const body = await certificatePdf({
      holder: found.holder,
      tutorialTitle: found.tutorialTitle,
      completedAt: found.completedAt,
      code: found.code,
      verifyUrl: `${req.server.config.publicBaseUrl.replace(/\/+$/, '')}/certificates/${found.code}/verify`,
    });
    return { file: { filename: `certificate-${found.code}.pdf`, contentType: 'application/pdf', body } };
  },

  async verifyCertificate(req) {
    const { code } = req.params;
    const certificate = await findCertificateByCode(req.server.db, code);
    if (!certificate) throw new AppError('CERTIFICATE_NOT_FOUND', { certificateCode: code }, 'Certificate not found');
    return {
      message: 'Certificate is valid',
      result: {
        valid: true,
        code,
        holder: { firstName: certificate.firstName, lastName: certificate.lastName },
        tutorial: { id: certificate.tutorialId, title: certificate.tutorialTitle },
        issuedAt: iso(certificate.completedAt),
      },
    };
  },
};

export const tutorialHandlers: ModuleHandlers<
  UserOps | 'listAdminTutorials' | 'createTutorial' | 'getAdminTutorialById' | 'updateTutorial' | 'deleteTutorial'
> = Object.assign({}, userTutorialHandlers, adminTutorialHandlers);
