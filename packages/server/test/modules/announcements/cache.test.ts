import { useTestApp } from '../../support/app.js';
import { cacheCases } from './cache-cases.js';

// The process-local cache (no Redis): the same rules as through Redis.
const t = useTestApp({ redisUrl: undefined });

cacheCases(() => t);
