/**
 * Accounts and cards, and their spend limits, answer exactly the SDK 0.119 types: each answer that makes, changes or reads
 * one is checked against its shape copied from the type (testing/resource-shapes.ts, itself
 * checked against the SDK by testing/sdk-shapes.unit.test.ts).
 */
import crypto from 'node:crypto';
import Lithic from 'lithic';
import { beforeAll } from 'vitest';
import { enforcedRule, velocityLimit } from '../testing/auth_rules.js';
import { acceptedAccountToken, enroll, kybBody, US_ADDRESS } from '../testing/enrollment.js';
import { describeWithDb, useTestServer } from '../testing/harness.js';
import { ACCOUNT, ACCOUNT_SPEND_LIMITS, CARD, CARD_SPEND_LIMITS } from '../testing/resource-shapes.js';
import { describeShapeSteps } from '../testing/shape-steps.js';

const SHIPPING = { ...US_ADDRESS, first_name: 'Janet', last_name: 'Yellen' };

describeWithDb('accounts and cards answer the SDK 0.119 types', () => {
  const context = useTestServer();
  let client: Lithic;
  beforeAll(() => {
    client = context.program.client;
  });

  describeShapeSteps([
    {
      resource: 'account',
      shape: ACCOUNT,
      steps: {
        'the program’s default, listed': async () => (await client.accounts.list({ page_size: 100 })).data,
        'an enrolled business, retrieved': async () => [await client.accounts.retrieve((await enroll(client, kybBody('KYB_BYO'))).account_token)],
        'PATCH every field, then paused and closed': async () => {
          const token = await acceptedAccountToken(client);
          await enforcedRule(client, velocityLimit({ limit_count: 5 }, { account_tokens: [token] }));
          return [
            await client.accounts.update(token, { daily_spend_limit: 100, monthly_spend_limit: 1_000, lifetime_spend_limit: 10_000, comment: 'c', verification_address: US_ADDRESS }),
            await client.accounts.update(token, { state: 'PAUSED', substatus: 'FRAUD_IDENTIFIED', comment: 'paused' }),
            await client.accounts.update(token, { state: 'CLOSED', substatus: 'END_USER_REQUEST' }),
            await client.accounts.retrieve(token),
          ];
        },
      },
    },
    {
      resource: 'card',
      shape: CARD,
      steps: {
        'create each type': async () => {
          const created = [];
          for (const type of ['VIRTUAL', 'SINGLE_USE', 'MERCHANT_LOCKED', 'UNLOCKED', 'DIGITAL_WALLET'] as const) created.push(await client.cards.create({ type }));
          created.push(await client.cards.create({ type: 'PHYSICAL', shipping_address: SHIPPING, product_id: '100' }));
          return created;
        },
        'create with every optional field, a replacement': async () => {
          const account_token = await acceptedAccountToken(client);
          const first = await client.cards.create({ type: 'VIRTUAL', account_token });
          await enforcedRule(client, velocityLimit({ limit_count: 5 }, { card_tokens: [first.token] }));
          return [
            first,
            await client.cards.retrieve(first.token),
            await client.cards.create({
              type: 'VIRTUAL',
              account_token,
              memo: 'Groceries',
              spend_limit: 25_000,
              spend_limit_duration: 'MONTHLY',
              exp_month: '02',
              exp_year: '2099',
              digital_card_art_token: crypto.randomUUID(),
            }),
            await client.cards.create({ type: 'VIRTUAL', replacement_for: first.token, replacement_substatus: 'LOST' }),
          ];
        },
        'PATCH, paused, closed, listed': async () => {
          const card = await client.cards.create({ type: 'VIRTUAL' });
          return [
            await client.cards.update(card.token, { memo: 'm', network_program_token: crypto.randomUUID(), comment: 'VIP', substatus: 'INTERNAL_REVIEW' }),
            await client.cards.update(card.token, { state: 'PAUSED', substatus: 'LOST' }),
            await client.cards.update(card.token, { state: 'CLOSED', substatus: 'COMPROMISED' }),
            ...(await client.cards.list({ page_size: 100 })).data,
          ];
        },
      },
    },
    {
      resource: 'account spend limits',
      shape: ACCOUNT_SPEND_LIMITS,
      steps: {
        'without and with limits': async () => {
          const token = await acceptedAccountToken(client);
          const unlimited = await client.accounts.retrieveSpendLimits(token);
          await client.accounts.update(token, { daily_spend_limit: 100, monthly_spend_limit: 1_000, lifetime_spend_limit: 10_000 });
          return [unlimited, await client.accounts.retrieveSpendLimits(token)];
        },
      },
    },
    {
      resource: 'card spend limits',
      shape: CARD_SPEND_LIMITS,
      steps: {
        'each duration': async () => {
          const limits = [];
          for (const spend_limit_duration of ['ANNUALLY', 'FOREVER', 'MONTHLY', 'TRANSACTION'] as const) {
            limits.push(await client.cards.retrieveSpendLimits((await client.cards.create({ type: 'VIRTUAL', spend_limit: 1_000, spend_limit_duration })).token));
          }
          limits.push(await client.cards.retrieveSpendLimits((await client.cards.create({ type: 'VIRTUAL' })).token));
          return limits;
        },
      },
    },
  ]);
});
