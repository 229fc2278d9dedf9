import { AppError } from '../../lib/errors.js';

export const tutorialNotFound = (tutorialId: number) => new AppError('TUTORIAL_NOT_FOUND', { tutorialId }, 'Tutorial not found');

/** "3,14" → [3, 14] (the contract's pattern has checked the form). */
export const idList = (text: string | undefined) => (text === undefined ? [] : [...new Set(text.split(',').map(Number))]);
