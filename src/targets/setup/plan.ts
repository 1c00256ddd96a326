import { type AccountRole, accountRoles } from '../account-mapping.js';

// `booksync targets setup <target>`: what a company's chart of accounts needs before booksync can push to it.
// Each target reads its chart and plans, role by role (a pure function of the chart and the mapping in
// force): an account it already has (matched), one to create, or one in the way (an account with the
// role's number or name but of a type the role's documents cannot use). Applying creates the missing ones
// and writes the mapping to TARGET_ACCOUNTS. The shapes here are the same for every target.

/** An account of the target's chart, as the plan names it. */
export interface PlannedAccount {
  /** The target's own id of it. */
  id: string;
  /** What TARGET_ACCOUNTS names it by at this target (a number or code, else the target's id). */
  code: string;
  name: string;
  /** Its type as the target says it: `Bank`, `Other Current Asset (subtype UndepositedFunds)`. */
  type: string;
}

export type RoleStep =
  | { role: AccountRole; kind: 'matched'; account: PlannedAccount; why: string }
  | {
      role: AccountRole;
      kind: 'create';
      name: string;
      /** The new account's type, as the target's create takes it (QuickBooks: AccountType, AccountSubType). */
      type: string;
      fields: Readonly<Record<string, string>>;
    }
  | { role: AccountRole; kind: 'conflict'; account: PlannedAccount; why: string; required: string };

/** One step per role, in the roles' order. */
export interface SetupPlan {
  target: string;
  steps: RoleStep[];
}

export const hasConflicts = (plan: SetupPlan): boolean => plan.steps.some((s) => s.kind === 'conflict');
export const toCreate = (plan: SetupPlan) =>
  plan.steps.filter((s): s is Extract<RoleStep, { kind: 'create' }> => s.kind === 'create');

/** One line per role, as a person reads the plan. */
export function planLines(plan: SetupPlan): string[] {
  return plan.steps.map((step) => {
    const role = step.role.padEnd(24);
    if (step.kind === 'matched')
      return `${role} matched   ${step.account.name} (${step.account.code}, ${step.account.type}): ${step.why}`;
    if (step.kind === 'create') return `${role} to create ${step.name} (${step.type})`;
    return `${role} CONFLICT  ${step.account.name} (${step.account.code}) is ${step.account.type}, ${step.why}; ${step.role} requires ${step.required}`;
  });
}

/**
 * TARGET_ACCOUNTS for the plan's matched accounts and the created ones (`created`: role → code), every role
 * in the roles' order; null while a role has neither.
 */
export function mappingValue(
  plan: SetupPlan,
  created: Partial<Record<AccountRole, string>> = {},
): string | null {
  const code = new Map<AccountRole, string>();
  for (const step of plan.steps) if (step.kind === 'matched') code.set(step.role, step.account.code);
  for (const [role, value] of Object.entries(created)) code.set(role as AccountRole, value);
  if (accountRoles.some((role) => !code.has(role))) return null;
  return accountRoles.map((role) => `${role}=${code.get(role)}`).join(',');
}
