import { loadConfig } from '../config.js';
import { databaseTarget } from '../plugins/database.js';
import { connect } from './connect.js';
import { migrateToLatest } from './migrate.js';
import { seedDemoData } from './seed.js';

/** `pnpm db:migrate` and `pnpm db:seed`, on the database the configuration names. */
const command = process.argv[2];
if (command !== 'migrate' && command !== 'seed') {
  console.error('usage: cli.ts migrate|seed');
  process.exit(2);
}
const config = loadConfig();
const db = connect(databaseTarget(config));
try {
  await migrateToLatest(db);
  console.log('migrations applied');
  if (command === 'seed') {
    if (config.nodeEnv === 'production') throw new Error('demo data is never seeded in production');
    console.log((await seedDemoData(db)) ? 'demo data seeded' : 'the database already has users: demo data not seeded');
  }
} finally {
  await db.destroy();
}
