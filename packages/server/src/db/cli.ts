import { type Config, ConfigError, loadConfig } from '../config.js';
import { checkedAdmin, createAdmin } from './admin.js';
import { connect, DEFAULT_TIMEOUTS, databaseTarget } from './connect.js';
import { DataDirLocked } from './lock.js';
import { migrateToLatest } from './migrate.js';
import { seedDemoData } from './seed.js';
import { seedReferenceData } from './seed-reference.js';
import { sealStoredSecrets } from '../lib/webhook-secrets.js';

/**
 * Operator commands on the database the configuration names:
 *   migrate                          apply pending migrations, then add missing reference data
 *   seed                             migrate, reference data, and demo data (never in production)
 *   admin:create <username> <email>  create a super administrator (password: ADMIN_PASSWORD or a prompt)
 */
const [command, ...args] = process.argv.slice(2);
const usage = 'usage: cli.js migrate | seed | admin:create <username> <email>';
if (command !== 'migrate' && command !== 'seed' && command !== 'admin:create') {
  console.error(usage);
  process.exit(2);
}
let config: Config;
let db: ReturnType<typeof connect>;
try {
  config = loadConfig(process.env, { signsTokens: false });
  const target = databaseTarget(config);
  // An operator's command: migrations on a large database build indexes for minutes, so the
  // server's statement and reply timeouts (made for requests) do not apply to it.
  db = connect(
    target.kind === 'postgres'
      ? Object.assign({}, target, { timeouts: Object.assign({}, DEFAULT_TIMEOUTS, target.timeouts, { statementMs: 0, queryMs: 0 }) })
      : target,
  );
} catch (error) {
  console.error(error instanceof ConfigError || error instanceof DataDirLocked ? error.message : error);
  process.exit(1);
}
try {
  // admin:create: the input is checked (and the password asked for) before the database is touched.
  let admin: Awaited<ReturnType<typeof checkedAdmin>> | undefined;
  if (command === 'admin:create') {
    const [username, email] = args;
    if (!username || !email) throw new Error(`admin:create needs a username and an e-mail address (${usage})`);
    admin = await checkedAdmin({ username, email, password: config.adminPassword });
  }
  const applied = await migrateToLatest(db);
  console.log(applied.length > 0 ? `migrations applied: ${applied.join(', ')}` : 'migrations: none pending');
  const sealed = await sealStoredSecrets(db, config.webhooks.secretKeys);
  if (sealed > 0) console.log(`webhook secrets: ${sealed} sealed under key ${config.webhooks.secretKeys[0]!.id}`);
  const added = await seedReferenceData(db);
  console.log(added > 0 ? `reference data: ${added} rows added` : 'reference data already present');
  if (command === 'seed') {
    if (config.nodeEnv === 'production') {
      console.log('production: demo data is never seeded (reference data only)');
    } else {
      console.log((await seedDemoData(db)) ? 'demo data seeded' : 'the database already has users: demo data not seeded');
    }
  }
  if (admin) {
    const user = await createAdmin(db, admin);
    console.log(`super administrator ${user.username} created (id ${user.id})`);
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
} finally {
  await db.destroy();
}
