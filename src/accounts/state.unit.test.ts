import { describe, expect, it } from 'vitest';
import { ACCOUNT_STATES, accountStateChangeRefusal } from './state.js';

describe('account state machine', () => {
  it('allows ACTIVE ⇄ PAUSED, either → CLOSED, and staying put', () => {
    for (const [from, to] of [
      ['ACTIVE', 'PAUSED'],
      ['PAUSED', 'ACTIVE'],
      ['ACTIVE', 'CLOSED'],
      ['PAUSED', 'CLOSED'],
      ['ACTIVE', 'ACTIVE'],
      ['PAUSED', 'PAUSED'],
    ] as const) {
      expect(accountStateChangeRefusal(from, to), `${from} → ${to}`).toBeNull();
    }
  });

  it('refuses every state update of a CLOSED account', () => {
    for (const to of ACCOUNT_STATES) expect(accountStateChangeRefusal('CLOSED', to)).toBe('the account is CLOSED, which is final');
  });
});
