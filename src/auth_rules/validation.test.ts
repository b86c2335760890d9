/** Parameter validation through the API: a 400 naming the exact path, never a 500, on create and draft. */
import { expect, it } from 'vitest';
import { createRule } from '../testing/auth_rules.js';
import { describeWithDb, useTestServer } from '../testing/harness.js';
import { expectError } from '../testing/money.js';

describeWithDb('auth rule parameter validation', () => {
  const context = useTestServer();

  it.each([
    ['CONDITIONAL_BLOCK', { conditions: [{ attribute: 'MCC', operation: 'IS_ONE_OF', value: ['5411'] }, { attribute: 'MCC', operation: 'IS_ONE_OF', value: '5411' }] }, 'parameters.conditions[1].value: must be an array of strings for IS_ONE_OF, not string'],
    ['CONDITIONAL_BLOCK', { conditions: [{ attribute: 'DESCRIPTOR', operation: 'MATCHES', value: '[z-a]' }] }, 'parameters.conditions[0].value: must be a valid regular expression'],
    ['CONDITIONAL_BLOCK', { conditions: [{ attribute: 'DESCRIPTOR', operation: 'MATCHES', value: '(?<!A)B' }] }, 'parameters.conditions[0].value: must be a regular expression that runs in linear time: no backreferences, no lookaround'],
    ['CONDITIONAL_BLOCK', { conditions: [{ attribute: 'TRANSACTION_AMOUNT', operation: 'IS_LESS_THAN', value: '10' }] }, 'parameters.conditions[0].value: must be an integer, not string'],
    ['CONDITIONAL_BLOCK', { conditions: [{ attribute: 'MESSAGE_CATEGORY', operation: 'IS_ONE_OF', value: ['PAYMENT_AUTHENTICATION'] }] }, 'parameters.conditions[0].attribute: must be one of MCC'],
    ['VELOCITY_LIMIT', { scope: 'CARD', period: { type: 'WEEK', day_of_week: 0 }, filters: {}, limit_count: 1 }, 'parameters.period.day_of_week: must be between 1 and 7'],
    ['VELOCITY_LIMIT', { scope: 'CARD', period: 'DAY', filters: { include_mccs: ['shop'] }, limit_count: 1 }, 'parameters.filters.include_mccs[0]: must be a 4-digit merchant category code'],
    ['VELOCITY_LIMIT', { scope: 'CARD', period: 'DAY', filters: { include_pan_entry_modes: ['CHIP'] }, limit_count: 1 }, 'parameters.filters.include_pan_entry_modes[0]: must be one of AUTO_ENTRY, BAR_CODE'],
    ['VELOCITY_LIMIT', { scope: 'CARD', period: 'DAY', filters: {} }, 'parameters: give limit_amount or limit_count (or both)'],
    ['MERCHANT_LOCK', { merchants: [{ comment: 'no id' }] }, 'parameters.merchants[0]: give merchant_id or descriptor (or both)'],
    ['CONDITIONAL_3DS_ACTION', { action: 'ALLOW', conditions: [] }, 'parameters.action: must be one of DECLINE, CHALLENGE'],
    ['CONDITIONAL_3DS_ACTION', { action: 'DECLINE', conditions: [{ attribute: 'WALLET_TYPE', operation: 'IS_ONE_OF', value: ['NONE'] }] }, 'parameters.conditions[0].attribute: must be one of'],
    ['MERCHANT_LOCK', { conditions: [] }, 'parameters.conditions: is not a recognised field'],
  ])('%s refuses %j', async (type, parameters, message) => {
    const client = context.program.client;
    expect(await expectError(createRule(client, { type, parameters, program_level: true }), 400)).toContain(message);
  });

  it('answers every malformed parameters value with a 400, on create and on draft', async () => {
    const client = context.program.client;
    const rule = await createRule(client, { type: 'VELOCITY_LIMIT', parameters: { scope: 'CARD', period: 'DAY', filters: {}, limit_count: 1 }, program_level: true });
    const oddities: unknown[] = [null, 7, 'DAY', [], [{}], { scope: null }, { period: [] }, { filters: 'all' }, { conditions: null }, { conditions: [null] }, { merchants: [[]] }];
    const fields = ['scope', 'period', 'filters', 'limit_amount', 'limit_count', 'conditions', 'merchants', 'action'];
    for (const type of ['CONDITIONAL_BLOCK', 'VELOCITY_LIMIT', 'MERCHANT_LOCK', 'CONDITIONAL_3DS_ACTION', 'CONDITIONAL_ACTION']) {
      for (const oddity of [...oddities, ...fields.flatMap((field) => oddities.map((value) => ({ [field]: value })))]) {
        const response = await context.server.request('POST', '/v2/auth_rules', { apiKey: context.program.apiKey, body: { type, parameters: oddity, program_level: true } });
        expect(response.status, `${type} ${JSON.stringify(oddity)}`).toBe(400);
      }
    }
    for (const oddity of oddities) {
      const response = await context.server.request('POST', `/v2/auth_rules/${rule.token}/draft`, { apiKey: context.program.apiKey, body: { parameters: oddity } });
      expect(response.status, JSON.stringify(oddity)).toBe(oddity === null ? 200 : 400);
    }
  });
});
