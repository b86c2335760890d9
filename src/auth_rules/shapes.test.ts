/**
 * Auth Rules v2 answer exactly the SDK 0.119 types: every answer that makes, changes, reads or
 * lists a rule (each kind of parameters, each period form of a velocity limit, each scope, drafts
 * and promotions) and the performance report is checked against its shape copied from the type
 * (testing/auth-rule-shapes.ts, itself checked against the SDK by testing/sdk-shapes.unit.test.ts);
 * some answer takes each variant of the shapes' unions, in the current and the draft version.
 */
import type Lithic from 'lithic';
import { beforeAll } from 'vitest';
import { AUTH_RULE, AUTH_RULE_REPORT } from '../testing/auth-rule-shapes.js';
import { conditionalBlock, createRule, enforcedRule, merchantLock, moveClock, newCard, threeDsAction, velocityLimit, type AuthRule, type RuleScope } from '../testing/auth_rules.js';
import { acceptedAccountToken, enroll, kybBody } from '../testing/enrollment.js';
import { describeWithDb, useTestServer } from '../testing/harness.js';
import { describeShapeSteps } from '../testing/shape-steps.js';
import { addDays } from './report.js';

/** A condition with each kind of value: a list, a pattern, an integer (valid on every stream). */
const CONDITIONS = [
  { attribute: 'MCC', operation: 'IS_ONE_OF', value: ['7995'] },
  { attribute: 'DESCRIPTOR', operation: 'MATCHES', value: '^CASINO' },
  { attribute: 'TRANSACTION_AMOUNT', operation: 'IS_GREATER_THAN', value: 100_000 },
];
const FILTERS = { include_mccs: ['5411'], exclude_mccs: null, include_countries: ['USA'], exclude_countries: ['CAN'], include_pan_entry_modes: ['ECOMMERCE'] };
const PERIODS = [86_400, 'WEEK', { type: 'CUSTOM', duration: 3_600 }, { type: 'DAY' }, { type: 'WEEK', day_of_week: 3 }, { type: 'MONTH', day_of_month: 15 }, { type: 'YEAR', month: 2, day_of_month: 29 }];

/** A create body of each kind of rule the server takes, on `scope`. */
function everyKind(scope: RuleScope): object[] {
  const conditionalAction = (event_stream: string) => ({ type: 'CONDITIONAL_ACTION', event_stream, parameters: { action: 'DECLINE', conditions: CONDITIONS }, ...scope });
  return [
    conditionalBlock(CONDITIONS, scope),
    ...PERIODS.map((period, index) => velocityLimit({ period, filters: FILTERS, limit_amount: 10_000, limit_count: index % 2 === 0 ? 5 : null }, scope)),
    velocityLimit({ scope: 'ACCOUNT', limit_amount: 10_000 }, scope),
    merchantLock([{ merchant_id: 'M-1' }, { descriptor: 'ACME', comment: '' }, { merchant_id: 'M-2', descriptor: 'SHOP', comment: 'both' }], scope),
    threeDsAction('CHALLENGE', CONDITIONS, scope),
    conditionalAction('AUTHORIZATION'),
    conditionalAction('THREE_DS_AUTHENTICATION'),
  ];
}

/** Each rule as created (a draft) and promoted (current). */
async function createdAndPromoted(client: Lithic, bodies: object[]): Promise<AuthRule[]> {
  const answers = [];
  for (const body of bodies) {
    const rule = await createRule(client, body);
    answers.push(rule, await client.authRules.v2.promote(rule.token));
  }
  return answers;
}

describeWithDb('Auth Rules v2 answer the SDK 0.119 types', () => {
  const context = useTestServer();
  let client: Lithic;
  beforeAll(() => {
    client = context.program.client;
  });
  const v2 = () => client.authRules.v2;

  describeShapeSteps([
    {
      resource: 'auth rule',
      shape: AUTH_RULE,
      steps: {
        'each kind, program-level (with excluded cards), created and promoted': async () => {
          const excluded = await newCard(client);
          return createdAndPromoted(client, everyKind({ program_level: true, excluded_card_tokens: [excluded.token] }));
        },
        'each kind on accounts, business accounts and cards, created, promoted and retrieved': async () => {
          const account = await acceptedAccountToken(client);
          const business = (await enroll(client, kybBody('KYB_BYO'))).account_token;
          const card = await newCard(client, account);
          const answers = [
            ...(await createdAndPromoted(client, everyKind({ account_tokens: [account] }))),
            ...(await createdAndPromoted(client, everyKind({ business_account_tokens: [business], account_tokens: [account] }))),
            ...(await createdAndPromoted(client, everyKind({ card_tokens: [card.token] }))),
          ];
          return [...answers, ...(await Promise.all(answers.map((rule) => v2().retrieve(rule.token))))];
        },
        'drafted, drafted again, draft cleared, drafted and promoted': async () => {
          const rule = await createRule(client, conditionalBlock(CONDITIONS));
          const parameters = { conditions: CONDITIONS.slice(1) };
          return [
            await v2().draft(rule.token, { parameters } as never),
            await v2().draft(rule.token, { parameters: { conditions: CONDITIONS.slice(2) } } as never),
            await v2().draft(rule.token, { parameters: null }),
            await v2().draft(rule.token, {}),
            await v2().promote((await v2().draft(rule.token, { parameters } as never)).token),
            await v2().retrieve(rule.token),
          ];
        },
        'PATCH name, state and each scope': async () => {
          const [account, card] = [await acceptedAccountToken(client), await newCard(client)];
          const program = await enforcedRule(client, velocityLimit({ limit_count: 3 }));
          const onAccount = await createRule(client, merchantLock([{ descriptor: 'ACME' }], { account_tokens: [account] }));
          const onCard = await createRule(client, threeDsAction('DECLINE', CONDITIONS, { card_tokens: [card.token] }));
          return [
            await v2().update(program.token, { name: 'renamed', state: 'INACTIVE' }),
            await v2().update(program.token, { program_level: true, excluded_card_tokens: [card.token] } as never),
            await v2().update(program.token, { program_level: false } as never),
            await v2().update(onAccount.token, { account_tokens: [], name: null } as never),
            await v2().update(onCard.token, { card_tokens: [] }),
          ];
        },
        'listed by each filter': async () => {
          const card = await newCard(client);
          await enforcedRule(client, conditionalBlock(CONDITIONS, { card_tokens: [card.token] }));
          const queries: Lithic.AuthRules.V2ListParams[] = [
            {},
            ...(['PROGRAM', 'ACCOUNT', 'BUSINESS_ACCOUNT', 'CARD', 'ANY'] as const).map((scope) => ({ scope })),
            { event_stream: 'THREE_DS_AUTHENTICATION' },
            { card_token: card.token },
            { account_token: card.account_token },
          ];
          const pages = await Promise.all(queries.map((query) => v2().list({ page_size: 100, ...query })));
          return pages.flatMap((page) => page.data);
        },
      },
    },
    {
      resource: 'auth rule report',
      shape: AUTH_RULE_REPORT,
      steps: {
        'a rule’s days before it, of authorizations and 3DS authentications, in the current and draft versions': async () => {
          const day = '2031-03-10';
          const { client: own } = await context.server.newProgram('report');
          await moveClock(own, `${day}T12:00:00.000Z`);
          const card = (await newCard(own)) as Lithic.Card & { pan: string };
          const block = await enforcedRule(own, conditionalBlock([{ attribute: 'MCC', operation: 'IS_ONE_OF', value: ['7995'] }]));
          await own.authRules.v2.draft(block.token, { parameters: { conditions: [{ attribute: 'MCC', operation: 'IS_ONE_OF', value: ['7995', '5411'] }] } } as never);
          const challenge = await enforcedRule(own, threeDsAction('CHALLENGE', [{ attribute: 'TRANSACTION_AMOUNT', operation: 'IS_GREATER_THAN', value: 100 }]));
          for (const mcc of ['7995', '5411']) await own.transactions.simulateAuthorization({ amount: 1_000, descriptor: 'SHOP', pan: card.pan, mcc });
          await own.threeDS.authentication.simulate({ pan: card.pan, merchant: { id: 'M-1', country: 'USA', mcc: '5411', name: 'GROCER' }, transaction: { amount: 2_500, currency: 'USD' } });
          await moveClock(own, `${addDays(day, 2)}T12:00:00.000Z`);
          const range = { begin: addDays(day, -1), end: addDays(day, 1) };
          return [await own.authRules.v2.retrieveReport(block.token, range), await own.authRules.v2.retrieveReport(challenge.token, range)];
        },
      },
    },
  ]);
});
