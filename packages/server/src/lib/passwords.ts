/*
 * Password hashing (argon2id with the library's defaults). The native addon is loaded on first
 * use: finding and loading it was a measurable part of start-up, and most starts hash nothing
 * until someone logs in.
 */
let argon2: Promise<typeof import('@node-rs/argon2')> | undefined;
const library = () => {
  argon2 ??= import('@node-rs/argon2');
  return argon2;
};

export async function hashPassword(password: string): Promise<string> {
  return (await library()).hash(password);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  return (await library()).verify(passwordHash, password);
}
