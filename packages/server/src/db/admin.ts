import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { passwordProblem } from '../lib/password-policy.js';
import { hashPassword } from '../lib/passwords.js';
import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../lib/db-errors.js';
import type { Database } from './schema.js';
import { DEMO_PASSWORD } from './seed.js';

const SUPER_ADMIN_ROLE_ID = 1;
const SUPER_ADMIN_MIN_PASSWORD = 8;
const USERNAME = /^[A-Za-z0-9._-]{3,50}$/;
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

export interface AdminOptions {
  /** The sandbox's `root` shares the demo accounts' published password. */
  allowDemoPassword?: boolean;
}

/**
 * Reads a password from the terminal without echoing it: readline writes to a stream that passes
 * on the question and drops everything after it (the typed characters readline echoes).
 */
export async function promptPassword(question: string): Promise<string> {
  if (!process.stdin.isTTY) throw new Error('no terminal to ask for the password: set ADMIN_PASSWORD');
  let asked = false;
  const output = new Writable({
    write(chunk, encoding, done) {
      if (!asked) process.stdout.write(chunk, encoding);
      done();
    },
  });
  const rl = createInterface({ input: process.stdin, output, terminal: true });
  try {
    return await new Promise<string>((resolve) => {
      rl.question(question, resolve);
      asked = true;
    });
  } finally {
    process.stdout.write('\n');
    rl.close();
  }
}

/**
 * The new administrator's username, e-mail and password (asked on the terminal when not given),
 * checked before anything is written: the API's password rules (lib/password-policy.ts: not the
 * username or the e-mail nor containing them, not only whitespace, not a common password), with
 * at least 8 characters for this account, and never the demo accounts' password (only the
 * in-memory sandbox, whose accounts all use it, passes `allowDemoPassword`).
 */
export async function checkedAdmin(
  input: { username: string; email: string; password: string | undefined },
  options: AdminOptions = {},
): Promise<{ username: string; email: string; password: string }> {
  if (!USERNAME.test(input.username)) throw new Error('username must be 3 to 50 letters, digits, dots, dashes or underscores');
  if (!EMAIL.test(input.email)) throw new Error('email must be an e-mail address');
  const password = input.password ?? (await promptPassword(`Password for ${input.username}: `));
  const problem = await passwordProblem(password, input, SUPER_ADMIN_MIN_PASSWORD);
  if (problem !== null) throw new Error(`the password ${problem}`);
  // The demo accounts' password is published (and refused at login in production): never an administrator's.
  if (!options.allowDemoPassword && password.trim().toLowerCase() === DEMO_PASSWORD) {
    throw new Error(`the password must not be the demo accounts' password (${DEMO_PASSWORD}), which production refuses at login`);
  }
  return { username: input.username, email: input.email, password };
}

/**
 * Creates the first super administrator of an installation (a production database has no users).
 * The account belongs to the first country of the reference data and to no organization.
 */
export async function createAdmin(
  db: Kysely<Database>,
  input: { username: string; email: string; password: string | undefined },
  options: AdminOptions = {},
): Promise<{ id: number; username: string }> {
  const { password } = await checkedAdmin(input, options);
  const country = await db.selectFrom('countries').select('id').orderBy('id').limit(1).executeTakeFirst();
  if (!country) throw new Error('no reference data: run `pnpm db:migrate` first');
  const now = new Date();
  try {
    return await db
      .insertInto('users')
      .values({
        username: input.username,
        email: input.email.toLowerCase(),
        password_hash: await hashPassword(password),
        role_id: SUPER_ADMIN_ROLE_ID,
        country_id: country.id,
        created_at: now,
        updated_at: now,
      })
      .returning(['id', 'username'])
      .executeTakeFirstOrThrow();
  } catch (error) {
    if (isUniqueViolation(error)) throw new Error(`a user with the username ${input.username} or the e-mail ${input.email} already exists`);
    throw error;
  }
}
