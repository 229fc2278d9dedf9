/*
 * The password rules of every place a password is set: account creation and password change
 * through the API, and `admin:create` on the command line. The contract's schemas state the
 * length and the non-blank rule; the rest is here. Demo accounts are seeded without it.
 */

/** How many of the most common passwords are refused (the list is ranked, most common first). */
export const COMMON_PASSWORDS_REFUSED = 10_000;
export const PASSWORD_MAX_LENGTH = 128;

let common: Promise<Set<string>> | undefined;
/**
 * The most common passwords, lower case: zxcvbn's list of passwords seen most often in breaches
 * (`@zxcvbn-ts/language-common`, ranked), loaded on first use (it is read only when a password is set).
 */
const commonPasswords = () => {
  common ??= import('@zxcvbn-ts/language-common').then(
    ({ dictionary }) => new Set(dictionary['passwords-common'].slice(0, COMMON_PASSWORDS_REFUSED)),
  );
  return common;
};

/**
 * What is wrong with `password` for the account, as the rule it breaks ("must ..."), or null.
 * Compared ignoring case and surrounding spaces: the username and the e-mail may be neither the
 * password nor a part of it, and it may not be one of the most common passwords.
 */
export async function passwordProblem(
  password: string,
  account: { username: string; email: string },
  minLength = 6,
): Promise<string | null> {
  if (password.length < minLength || password.length > PASSWORD_MAX_LENGTH) {
    return `must be ${minLength} to ${PASSWORD_MAX_LENGTH} characters`;
  }
  if (password.trim() === '') return 'must not be only whitespace';
  const lower = password.trim().toLowerCase();
  const username = account.username.toLowerCase();
  const email = account.email.toLowerCase();
  if (lower.includes(username) || lower.includes(email)) return 'must not equal or contain the username or the e-mail';
  if ((await commonPasswords()).has(lower)) {
    return `must not be one of the ${COMMON_PASSWORDS_REFUSED} most common passwords`;
  }
  return null;
}
