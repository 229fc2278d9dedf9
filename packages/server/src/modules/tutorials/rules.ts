import { AppError } from '../../http/errors.js';

export const tutorialNotFound = (tutorialId: number) => new AppError('TUTORIAL_NOT_FOUND', { tutorialId }, 'Tutorial not found');
