/**
 * Account state machine (Lithic's Account.state): ACTIVE ⇄ PAUSED, either → CLOSED, and CLOSED is
 * final. Setting the state an account already has is a no-op, except on a CLOSED account, where
 * any state update is refused. Pure; the service turns a refusal into a 422.
 */
export const ACCOUNT_STATES = ['ACTIVE', 'PAUSED', 'CLOSED'] as const;
export type AccountState = (typeof ACCOUNT_STATES)[number];

const ALLOWED: Readonly<Record<AccountState, readonly AccountState[]>> = {
  ACTIVE: ['ACTIVE', 'PAUSED', 'CLOSED'],
  PAUSED: ['PAUSED', 'ACTIVE', 'CLOSED'],
  CLOSED: [],
};

/** Why `from → to` is refused, or null when it is allowed. */
export function accountStateChangeRefusal(from: AccountState, to: AccountState): string | null {
  if (ALLOWED[from].includes(to)) return null;
  return from === 'CLOSED' ? 'the account is CLOSED, which is final' : `an account cannot go from ${from} to ${to}`;
}
