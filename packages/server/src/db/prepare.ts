import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import { disableDemoAccounts } from './demo-accounts.js';
import { migrateToLatest } from './migrate.js';
import { sealStoredSecrets } from '../lib/webhook-secrets.js';
import type { Database } from './schema.js';
import { seedDemoData } from './seed.js';
import { seedReferenceData } from './seed-reference.js';

type Log = (message: string) => void;

/**
 * What runs before the app is built, outside any plugin timeout: pending migrations and the
 * reference data (unless SKIP_MIGRATIONS), then demo data into an empty database outside production;
 * in production, the demo accounts a database may hold are reported and their sessions revoked.
 */
export async function prepareDatabase(db: Kysely<Database>, config: Config, log: Log): Promise<void> {
  if (config.skipMigrations) {
    log('migrations skipped (SKIP_MIGRATIONS=true)');
  } else {
    const applied = await migrateToLatest(db);
    if (applied.length > 0) log(`migrations applied: ${applied.join(', ')}`);
    const added = await seedReferenceData(db);
    if (added > 0) log(`reference data: ${added} rows added`);
  }
  const sealed = await sealStoredSecrets(db, config.webhooks.secretKeys);
  if (sealed > 0) log(`webhook secrets: ${sealed} sealed under key ${config.webhooks.secretKeys[0]!.id}`);
  if (config.seedDemoData && (await seedDemoData(db))) log('demo data seeded');
  if (config.nodeEnv === 'production') await disableDemoAccounts(db, log);
}
