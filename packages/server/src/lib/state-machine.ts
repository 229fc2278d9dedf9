/**
 * One table of transitions per status workflow (complaints, transports, announcements, forum
 * topics): each row says from which state an action leads to which state, and which access levels
 * may apply it. The same table answers "may this caller do this?", "what may this caller do
 * here?" and "where does it lead?", so the rule exists once.
 */
export interface Transition<S extends string, A extends string, R extends string> {
  from: S;
  action: A;
  to: S;
  /** Access levels allowed to apply it. */
  roles: readonly R[];
}

export type Verdict<S extends string> =
  | { ok: true; to: S }
  /** `transition`: the action is not offered in this state; `role`: it is, but not to this caller. */
  | { ok: false; reason: 'transition' | 'role'; roles: readonly string[] };

export interface StateMachine<S extends string, A extends string, R extends string> {
  readonly transitions: readonly Transition<S, A, R>[];
  /** Whether `role` may apply `action` in state `from`, and where it leads. */
  check(from: S, action: A, role: R): Verdict<S>;
  /** Actions offered in `from` (to `role` when given), in table order, without duplicates. */
  allowed(from: S, role?: R): A[];
  /** Every state reachable from `from` (to `role` when given). */
  targets(from: S, role?: R): S[];
}

export function stateMachine<S extends string, A extends string, R extends string>(
  transitions: readonly Transition<S, A, R>[],
): StateMachine<S, A, R> {
  const offered = (from: S, role?: R) => transitions.filter((t) => t.from === from && (role === undefined || t.roles.includes(role)));
  const unique = <T>(items: T[]) => [...new Set(items)];
  return {
    transitions,
    check(from, action, role) {
      const rows = transitions.filter((t) => t.from === from && t.action === action);
      if (rows.length === 0) return { ok: false, reason: 'transition', roles: [] };
      const row = rows.find((t) => t.roles.includes(role));
      if (!row) return { ok: false, reason: 'role', roles: unique(rows.flatMap((t) => [...t.roles])) };
      return { ok: true, to: row.to };
    },
    allowed: (from, role) => unique(offered(from, role).map((t) => t.action)),
    targets: (from, role) => unique(offered(from, role).map((t) => t.to)),
  };
}

/** Access levels of the staff side, for the tables' `roles`. */
export const STAFF = ['team_manager', 'supervisor', 'admin', 'super_admin'] as const;
export const ADMINS = ['admin', 'super_admin'] as const;
