/** Auth Rules v2 endpoints over HTTP with the SDK: create, get, list, PATCH (seed 4.1), draft, promote, delete. */
import crypto from 'node:crypto';
import type Lithic from 'lithic';
import { beforeAll, describe, expect, it } from 'vitest';
import { acceptedAccountToken, enroll, kybBody, kycExemptBody } from '../testing/enrollment.js';
import { conditionalBlock, createRule, enforcedRule, merchantLock, newCard, threeDsAction, velocityLimit, type AuthRule } from '../testing/auth_rules.js';
import { describeWithDb, engine, useTestServer } from '../testing/harness.js';
import { afterRowsNaming } from '../testing/interleave.js';
import type { Executor } from '../db/database.js';
import * as service from './service.js';
import { expectError } from '../testing/money.js';
import { authorized } from '../testing/transactions.js';
import { expectPagedBothWays, type PagedList } from '../testing/paging.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const BLOCK_GAMBLING = [{ attribute: 'MCC', operation: 'IS_ONE_OF', value: ['7995'] }];

describeWithDb('auth rules', () => {
  const context = useTestServer();
  let client: Lithic;
  let card: Lithic.Card;
  let otherCard: Lithic.Card;
  let account: string;

  beforeAll(async () => {
    client = context.program.client;
    card = await newCard(client);
    otherCard = await newCard(client);
    account = await acceptedAccountToken(client);
  });

  const v2 = () => client.authRules.v2;
  const patch = (token: string, body: object) => v2().update(token, body as Lithic.AuthRules.V2UpdateParams);

  it('creates a program-level rule holding only a draft, ACTIVE, with every field of the rule object', async () => {
    const rule = await createRule(client, { ...conditionalBlock(BLOCK_GAMBLING, { program_level: true, excluded_card_tokens: [otherCard.token] }), name: 'No gambling' });
    expect(rule).toEqual({
      token: expect.stringMatching(UUID),
      state: 'ACTIVE',
      type: 'CONDITIONAL_BLOCK',
      event_stream: 'AUTHORIZATION',
      name: 'No gambling',
      account_tokens: [],
      business_account_tokens: [],
      card_tokens: [],
      program_level: true,
      excluded_card_tokens: [otherCard.token],
      current_version: null,
      draft_version: { parameters: { conditions: BLOCK_GAMBLING }, version: 1 },
      lithic_managed: false,
    });
    expect(await v2().retrieve(rule.token)).toEqual(rule);
  });

  it('creates account-level and card-level rules; the type decides the event stream', async () => {
    const accountRule = await createRule(client, velocityLimit({ limit_amount: 5_000 }, { account_tokens: [account] }));
    expect(accountRule).toMatchObject({ type: 'VELOCITY_LIMIT', event_stream: 'AUTHORIZATION', account_tokens: [account], card_tokens: [], program_level: false });
    expect(accountRule).not.toHaveProperty('excluded_card_tokens');
    const cardRule = await createRule(client, merchantLock([{ descriptor: 'ACME STORE' }], { card_tokens: [card.token, otherCard.token] }));
    expect(cardRule).toMatchObject({ type: 'MERCHANT_LOCK', event_stream: 'AUTHORIZATION', card_tokens: [card.token, otherCard.token], account_tokens: [] });
    const threeDs = await createRule(client, threeDsAction('CHALLENGE', [{ attribute: 'TRANSACTION_AMOUNT', operation: 'IS_GREATER_THAN', value: 100 }]));
    expect(threeDs).toMatchObject({ type: 'CONDITIONAL_3DS_ACTION', event_stream: 'THREE_DS_AUTHENTICATION' });
    const action = await createRule(client, {
      type: 'CONDITIONAL_ACTION',
      event_stream: 'THREE_DS_AUTHENTICATION',
      parameters: { action: 'DECLINE', conditions: [{ attribute: 'MESSAGE_CATEGORY', operation: 'IS_ONE_OF', value: ['NON_PAYMENT_AUTHENTICATION'] }] },
      program_level: true,
    });
    expect(action).toMatchObject({ type: 'CONDITIONAL_ACTION', event_stream: 'THREE_DS_AUTHENTICATION', name: null });
    const onAuthorization = await createRule(client, { type: 'CONDITIONAL_ACTION', parameters: { action: 'DECLINE', conditions: BLOCK_GAMBLING }, program_level: true });
    expect(onAuthorization.event_stream).toBe('AUTHORIZATION');
  });

  it('refuses an event_stream its type does not run on', async () => {
    const message = await expectError(createRule(client, { ...conditionalBlock(BLOCK_GAMBLING), event_stream: 'THREE_DS_AUTHENTICATION' }), 400);
    expect(message).toBe('event_stream: rules of type CONDITIONAL_BLOCK run on the AUTHORIZATION stream');
  });

  it.each([
    [{ parameters: { conditions: BLOCK_GAMBLING }, type: 'CONDITIONAL_BLOCK' }, 400, 'account_tokens: give the rule a scope: account_tokens, card_tokens or program_level: true'],
    [{ ...conditionalBlock(BLOCK_GAMBLING, { card_tokens: [] }) }, 400, 'card_tokens: must name at least one card'],
    [{ ...conditionalBlock(BLOCK_GAMBLING), program_level: false }, 400, 'program_level: must be true (or give account_tokens or card_tokens)'],
    [{ ...conditionalBlock(BLOCK_GAMBLING, { card_tokens: [crypto.randomUUID()] }), program_level: true }, 400, 'card_tokens, program_level: a rule has one scope'],
    [{ ...conditionalBlock(BLOCK_GAMBLING, { account_tokens: [crypto.randomUUID()] }), excluded_card_tokens: [] }, 400, 'excluded_card_tokens: only applies to program-level rules'],
    [{ ...conditionalBlock(BLOCK_GAMBLING), type: 'NOT_A_TYPE' }, 400, 'type: must be one of'],
    [{ ...conditionalBlock(BLOCK_GAMBLING), name: 'n'.repeat(1025) }, 400, 'name: must NOT have more than 1024 characters'],
    [{ program_level: true, type: 'CONDITIONAL_BLOCK' }, 400, 'parameters: is required'],
  ])('refuses a create body without exactly one valid scope or with bad fields (%#)', async (body, status, message) => {
    expect(await expectError(createRule(client, body), status)).toContain(message);
  });

  it('refuses duplicate tokens (400) and tokens of cards or accounts the program does not own (404)', async () => {
    const duplicate = await expectError(createRule(client, conditionalBlock(BLOCK_GAMBLING, { card_tokens: [card.token, otherCard.token, card.token] })), 400);
    expect(duplicate).toBe(`card_tokens[2]: duplicate of card_tokens[0] ('${card.token}')`);
    const stranger = await context.server.newProgram('stranger');
    const strangerCard = await newCard(stranger.client);
    expect(await expectError(createRule(client, conditionalBlock(BLOCK_GAMBLING, { card_tokens: [card.token, strangerCard.token] })), 404)).toBe(
      `card_tokens[1]: card '${strangerCard.token}' not found`,
    );
    expect(await expectError(createRule(client, conditionalBlock(BLOCK_GAMBLING, { account_tokens: [card.token] })), 404)).toBe(
      `account_tokens[0]: account '${card.token}' not found`,
    );
    expect(await expectError(createRule(client, conditionalBlock(BLOCK_GAMBLING, { program_level: true, excluded_card_tokens: [account] })), 404)).toBe(
      `excluded_card_tokens[0]: card '${account}' not found`,
    );
  });

  it('drafts, promotes and clears drafts; versions are immutable and only increase', async () => {
    const rule = await createRule(client, conditionalBlock(BLOCK_GAMBLING));
    const promoted = await v2().promote(rule.token);
    expect(promoted).toMatchObject({ state: 'ACTIVE', current_version: { parameters: { conditions: BLOCK_GAMBLING }, version: 1 }, draft_version: null });
    expect(await expectError(v2().promote(rule.token), 422)).toContain('has no draft version to promote');

    const wider = [{ attribute: 'MCC', operation: 'IS_ONE_OF', value: ['7995', '7801'] }];
    const drafted = await v2().draft(rule.token, { parameters: { conditions: wider } } as Lithic.AuthRules.V2DraftParams);
    expect(drafted.current_version).toEqual(promoted.current_version);
    expect(drafted.draft_version).toEqual({ parameters: { conditions: wider }, version: 2 });
    const redrafted = await v2().draft(rule.token, { parameters: { conditions: BLOCK_GAMBLING } } as Lithic.AuthRules.V2DraftParams);
    expect(redrafted.draft_version?.version).toBe(3);
    const cleared = await v2().draft(rule.token, { parameters: null });
    expect(cleared).toMatchObject({ current_version: { version: 1 }, draft_version: null });
    expect(await v2().draft(rule.token, {})).toMatchObject({ draft_version: null });

    await v2().draft(rule.token, { parameters: { conditions: wider } } as Lithic.AuthRules.V2DraftParams);
    const second = await v2().promote(rule.token);
    expect(second).toMatchObject({ current_version: { parameters: { conditions: wider }, version: 4 }, draft_version: null });
  });

  // PostgreSQL only (the tests below): the hook writes while the read's statement still holds its
  // connection, SQLite's only one.
  const readScope = () => ({ programId: context.program.programId, clockOffsetMs: 0, nowMs: 0 });

  it.skipIf(engine !== 'postgres')('shows the versions its rule row names when the rule is promoted while it is read', async () => {
    const rule = await createRule(client, conditionalBlock(BLOCK_GAMBLING, { card_tokens: [card.token] }));
    await v2().promote(rule.token);
    const wider = [{ attribute: 'MCC', operation: 'IS_ONE_OF', value: ['7995', '7801'] }];
    const drafted = await v2().draft(rule.token, { parameters: { conditions: wider } } as Lithic.AuthRules.V2DraftParams);
    const promote = afterRowsNaming(rule.token, () => v2().promote(rule.token));
    const read = await service.get(context.server.server.db.kysely.withPlugin(promote), readScope(), rule.token);
    expect(promote.ran).toBe(true);
    expect(read).toEqual(drafted);
    expect(await v2().retrieve(rule.token)).toMatchObject({ current_version: drafted.draft_version, draft_version: null });
  });

  it.skipIf(engine !== 'postgres').each([
    ['GET', (exec: Executor, token: string) => service.get(exec, readScope(), token)],
    ['the list', async (exec: Executor) => (await service.list(exec, readScope(), { card_token: card.token, page_size: 1 })).data[0]],
  ] as const)('%s answers a rule whose scope a PATCH changes while it is read as it was: its old scope with its old targets', async (_read, read) => {
    const rule = await createRule(client, conditionalBlock(BLOCK_GAMBLING, { card_tokens: [card.token] }));
    const toProgramLevel = afterRowsNaming(rule.token, () => patch(rule.token, { program_level: true, excluded_card_tokens: [otherCard.token] }));
    const answer = await context.server.server.db.snapshot((exec) => read(exec.withPlugin(toProgramLevel), rule.token));
    expect(toProgramLevel.ran).toBe(true);
    expect(answer).toEqual(rule);
    expect(await v2().retrieve(rule.token)).toMatchObject({ program_level: true, card_tokens: [], excluded_card_tokens: [otherCard.token] });
  });

  it('validates draft parameters against the rule type and stream', async () => {
    const rule = await createRule(client, threeDsAction('DECLINE', [{ attribute: 'MCC', operation: 'IS_ONE_OF', value: ['5411'] }]));
    const message = await expectError(
      v2().draft(rule.token, { parameters: { action: 'DECLINE', conditions: [{ attribute: 'PIN_ENTERED', operation: 'IS_ONE_OF', value: ['TRUE'] }] } } as never),
      400,
    );
    expect(message).toMatch(/^parameters\.conditions\[0\]\.attribute: must be one of MCC, .*MESSAGE_CATEGORY \(the attributes of this rule type on the THREE_DS_AUTHENTICATION stream\)$/);
    expect((await v2().retrieve(rule.token)).draft_version?.version).toBe(1);
  });

  it('PATCH (seed 4.1): name, deactivation, re-activation by promoting; the response is the whole rule', async () => {
    const rule = await createRule(client, conditionalBlock(BLOCK_GAMBLING));
    const renamed = await patch(rule.token, { name: 'renamed' });
    expect(renamed).toEqual({ ...rule, name: 'renamed' });
    expect(await patch(rule.token, { name: null })).toEqual({ ...rule, name: null });
    const inactive = await patch(rule.token, { state: 'INACTIVE' });
    expect(inactive).toEqual({ ...rule, name: null, state: 'INACTIVE' });
    expect(await expectError(patch(rule.token, { state: 'ACTIVE' }), 400)).toBe('state: only INACTIVE can be set; promote a draft to activate the rule');
    expect(await patch(rule.token, {})).toEqual(inactive);
    const reactivated = await v2().promote(rule.token);
    expect(reactivated).toMatchObject({ state: 'ACTIVE', current_version: { version: 1 } });
  });

  it('counts the name limit (1024) in characters on create and PATCH; a longer name changes nothing', async () => {
    const long = '\u{1F600}'.repeat(1024);
    const rule = await createRule(client, { ...conditionalBlock(BLOCK_GAMBLING), name: long });
    expect(rule.name).toBe(long);
    const renamed = await patch(rule.token, { name: 'é'.repeat(1024) });
    expect(renamed.name).toBe('é'.repeat(1024));
    expect(await expectError(patch(rule.token, { name: '\u{1F600}'.repeat(1025) }), 400)).toBe('name: must NOT have more than 1024 characters');
    expect(await v2().retrieve(rule.token)).toEqual(renamed);
  });

  it('refuses a blank name or one with control characters on create and PATCH (400 naming name); null clears it', async () => {
    expect(await expectError(createRule(client, { ...conditionalBlock(BLOCK_GAMBLING), name: '' }), 400)).toBe('name: must NOT have fewer than 1 characters');
    const blankOrControl = ['   ', 'a\tb', 'line\nbreak', '\u0085x'];
    for (const name of blankOrControl) {
      const message = await expectError(createRule(client, { ...conditionalBlock(BLOCK_GAMBLING), name }), 400);
      expect(message, JSON.stringify(name)).toBe('name: must contain a character other than white space, and no control characters');
    }
    const rule = await createRule(client, { ...conditionalBlock(BLOCK_GAMBLING), name: 'Block gambling' });
    for (const name of blankOrControl) {
      expect(await expectError(patch(rule.token, { name }), 400), JSON.stringify(name)).toBe('name: must contain a character other than white space, and no control characters');
    }
    expect(await v2().retrieve(rule.token)).toEqual(rule);
    expect(await patch(rule.token, { name: null })).toMatchObject({ name: null });
  });

  it('PATCH replaces the association of the variant given, and may move a rule to another scope', async () => {
    const rule = await createRule(client, conditionalBlock(BLOCK_GAMBLING, { card_tokens: [card.token] }));
    expect(await patch(rule.token, { card_tokens: [otherCard.token] })).toMatchObject({ card_tokens: [otherCard.token], program_level: false });
    expect(await patch(rule.token, { card_tokens: [] })).toMatchObject({ card_tokens: [] });
    const moved = await patch(rule.token, { account_tokens: [account] });
    expect(moved).toMatchObject({ account_tokens: [account], card_tokens: [], program_level: false });
    const programLevel = await patch(rule.token, { program_level: true });
    expect(programLevel).toMatchObject({ program_level: true, account_tokens: [], excluded_card_tokens: [] });
    const excluding = await patch(rule.token, { excluded_card_tokens: [card.token] });
    expect(excluding).toMatchObject({ program_level: true, excluded_card_tokens: [card.token] });
    expect(await patch(rule.token, { program_level: true, name: 'kept exclusions' })).toMatchObject({ excluded_card_tokens: [card.token] });
    const detached = await patch(rule.token, { program_level: false });
    expect(detached).toMatchObject({ program_level: false, account_tokens: [], card_tokens: [] });
    expect(detached).not.toHaveProperty('excluded_card_tokens');
    expect((await v2().list({ scope: 'PROGRAM', page_size: 100 })).data.map((r) => r.token)).not.toContain(rule.token);
    expect(await patch(rule.token, { program_level: true, excluded_card_tokens: [otherCard.token] })).toMatchObject({
      program_level: true,
      excluded_card_tokens: [otherCard.token],
    });
  });

  it('answers every token list in the order the client gave it (create, retrieve, list, PATCH, draft, promote), not sorted', async () => {
    const fresh = await context.server.newProgram('target order');
    /** `count` tokens, largest first: an order no sort by token gives. */
    const unsorted = async (count: number, make: () => Promise<string>) => {
      const tokens: string[] = [];
      for (let i = 0; i < count; i += 1) tokens.push(await make());
      return tokens.sort().reverse();
    };
    const cards = await unsorted(3, async () => (await newCard(fresh.client)).token);
    const accounts = await unsorted(2, () => acceptedAccountToken(fresh.client));
    const businesses = await unsorted(2, async () => (await enroll(fresh.client, kybBody('KYB_BYO'))).account_token);
    const rules = fresh.client.authRules.v2;

    const cardRule = await createRule(fresh.client, conditionalBlock(BLOCK_GAMBLING, { card_tokens: cards }));
    expect(cardRule.card_tokens).toEqual(cards);
    expect((await rules.retrieve(cardRule.token)).card_tokens).toEqual(cards);
    const reordered = [cards[1], cards[2], cards[0]] as string[];
    expect((await rules.update(cardRule.token, { card_tokens: reordered })).card_tokens).toEqual(reordered);
    expect((await rules.draft(cardRule.token, { parameters: { conditions: BLOCK_GAMBLING } } as Lithic.AuthRules.V2DraftParams)).card_tokens).toEqual(reordered);
    expect((await rules.promote(cardRule.token)).card_tokens).toEqual(reordered);

    const accountRule = await createRule(fresh.client, conditionalBlock(BLOCK_GAMBLING, { account_tokens: accounts, business_account_tokens: businesses }));
    expect(accountRule).toMatchObject({ account_tokens: accounts, business_account_tokens: businesses });
    const programRule = await createRule(fresh.client, conditionalBlock(BLOCK_GAMBLING, { program_level: true, excluded_card_tokens: cards }));
    expect(programRule.excluded_card_tokens).toEqual(cards);
    const listed = (await rules.list({ page_size: 100 })).data;
    expect(listed.map((rule) => [rule.card_tokens, rule.account_tokens, rule.business_account_tokens, rule.excluded_card_tokens])).toEqual([
      [[], [], [], cards],
      [[], accounts, businesses, undefined],
      [reordered, [], [], undefined],
    ]);
  });

  it('PATCH refuses mixed variants, exclusions on rules that are not program-level, duplicates and unknown tokens, changing nothing', async () => {
    const rule = await createRule(client, conditionalBlock(BLOCK_GAMBLING, { card_tokens: [card.token] }));
    expect(await expectError(patch(rule.token, { card_tokens: [card.token], account_tokens: [account] }), 400)).toBe(
      'account_tokens, card_tokens: fields of the account-level and card-level variants cannot be mixed in one update',
    );
    expect(await expectError(patch(rule.token, { card_tokens: [card.token], excluded_card_tokens: [] }), 400)).toContain(
      'fields of the card-level and program-level variants cannot be mixed',
    );
    expect(await expectError(patch(rule.token, { excluded_card_tokens: [otherCard.token] }), 400)).toBe('excluded_card_tokens: only applies to program-level rules');
    expect(await expectError(patch(rule.token, { program_level: false, excluded_card_tokens: [] }), 400)).toBe('excluded_card_tokens: only applies to program-level rules');
    expect(await expectError(patch(rule.token, { card_tokens: [otherCard.token, otherCard.token], name: 'x' }), 400)).toContain('card_tokens[1]: duplicate of card_tokens[0]');
    const unknown = crypto.randomUUID();
    expect(await expectError(patch(rule.token, { account_tokens: [account, unknown] }), 404)).toBe(`account_tokens[1]: account '${unknown}' not found`);
    expect(await expectError(patch(rule.token, { nickname: 'x' }), 400)).toBe('nickname: is not a recognised field');
    expect(await v2().retrieve(rule.token)).toEqual(rule);
    expect(await expectError(patch(crypto.randomUUID(), { name: 'x' }), 404)).toMatch(/^auth rule '.*' not found$/);
  });

  describe('business accounts (SDK 0.119: business_account_tokens in the account-level variant)', () => {
    /** A business, one authorized user of it, and a card on each account. */
    async function businessWithAuthorizedUser(owner: Lithic) {
      const business = await enroll(owner, kybBody('KYB_BYO'));
      const user = await enroll(owner, { ...kycExemptBody('AUTHORIZED_USER'), business_account_token: business.account_token });
      return { business: business.account_token, user: user.account_token, businessCard: await newCard(owner, business.account_token), userCard: await newCard(owner, user.account_token) };
    }

    it('binds a rule to a business account: shown on the rule, found by list filters, applied to the business and its authorized users', async () => {
      const fresh = await context.server.newProgram('business rules');
      const { business, user, businessCard, userCard } = await businessWithAuthorizedUser(fresh.client);
      const elsewhere = await newCard(fresh.client);
      const rule = await createRule(fresh.client, conditionalBlock(BLOCK_GAMBLING, { business_account_tokens: [business] }));
      expect(rule).toMatchObject({ business_account_tokens: [business], account_tokens: [], card_tokens: [], program_level: false });
      expect(rule).not.toHaveProperty('excluded_card_tokens');
      const accountRule = await createRule(fresh.client, velocityLimit({ limit_count: 3 }, { account_tokens: [user] }));

      const list = async (query: object) => (await fresh.client.authRules.v2.list({ page_size: 100, ...query } as never)).data.map((r) => r.token);
      expect(await list({ business_account_token: business })).toEqual([rule.token]);
      expect(await list({ business_account_token: user })).toEqual([]);
      expect(await list({ scope: 'BUSINESS_ACCOUNT' })).toEqual([rule.token]);
      expect(await list({ account_token: user })).toEqual([accountRule.token]);

      expect((await fresh.client.cards.retrieve(businessCard.token)).auth_rule_tokens).toEqual([rule.token]);
      expect((await fresh.client.cards.retrieve(userCard.token)).auth_rule_tokens).toEqual([rule.token, accountRule.token]);
      expect((await fresh.client.cards.retrieve(elsewhere.token)).auth_rule_tokens).toEqual([]);
      expect((await fresh.client.accounts.retrieve(user)).auth_rule_tokens).toEqual([rule.token, accountRule.token]);
    });

    it('lists a rule under scope ACCOUNT when it has account_tokens and under BUSINESS_ACCOUNT when it has business_account_tokens, paged both ways', async () => {
      const fresh = await context.server.newProgram('business scopes');
      const { business, user, userCard } = await businessWithAuthorizedUser(fresh.client);
      const byAccount = await createRule(fresh.client, conditionalBlock(BLOCK_GAMBLING, { account_tokens: [user] }));
      const byBusiness = await createRule(fresh.client, conditionalBlock(BLOCK_GAMBLING, { business_account_tokens: [business] }));
      const byBoth = await createRule(fresh.client, conditionalBlock(BLOCK_GAMBLING, { account_tokens: [user], business_account_tokens: [business] }));
      await createRule(fresh.client, conditionalBlock(BLOCK_GAMBLING, { card_tokens: [userCard.token] }));
      const byBusinessAgain = await createRule(fresh.client, velocityLimit({ limit_count: 3 }, { business_account_tokens: [business] }));
      await createRule(fresh.client, conditionalBlock(BLOCK_GAMBLING));
      const byAccountAgain = await createRule(fresh.client, velocityLimit({ limit_count: 3 }, { account_tokens: [user] }));
      const list: PagedList = (query) => fresh.client.authRules.v2.list(query);

      await expectPagedBothWays(list, { scope: 'ACCOUNT' }, [byAccountAgain.token, byBoth.token, byAccount.token]);
      await expectPagedBothWays(list, { scope: 'BUSINESS_ACCOUNT' }, [byBusinessAgain.token, byBoth.token, byBusiness.token]);
      await expectPagedBothWays(list, { scope: 'ACCOUNT', event_stream: 'AUTHORIZATION', account_token: user }, [byAccountAgain.token, byBoth.token, byAccount.token]);
      await expectPagedBothWays(list, { scope: 'ACCOUNT', business_account_token: business }, [byBoth.token]);

      // Emptying a rule's account_tokens leaves it under BUSINESS_ACCOUNT only if it has business accounts; with neither list it stays ACCOUNT (as an emptied card-level rule stays CARD).
      await fresh.client.authRules.v2.update(byBoth.token, { account_tokens: [] });
      await fresh.client.authRules.v2.update(byAccount.token, { account_tokens: [] });
      const tokens = async (scope: Lithic.AuthRules.V2ListParams['scope']) => (await fresh.client.authRules.v2.list({ scope, page_size: 100 })).data.map((rule) => rule.token);
      expect(await tokens('ACCOUNT')).toEqual([byAccountAgain.token, byAccount.token]);
      expect(await tokens('BUSINESS_ACCOUNT')).toEqual([byBusinessAgain.token, byBoth.token, byBusiness.token]);
    });

    it('follows an authorized user moved to another business: the next authorization runs the new business\'s rules, not the old one\'s', async () => {
      const fresh = await context.server.newProgram('business move');
      const [first, second] = [await enroll(fresh.client, kybBody('KYB_BYO')), await enroll(fresh.client, kybBody('KYB_BYO'))];
      const user = await enroll(fresh.client, { ...kycExemptBody('AUTHORIZED_USER'), business_account_token: first.account_token });
      const card = await newCard(fresh.client, user.account_token);
      const rule = await enforcedRule(fresh.client, conditionalBlock(BLOCK_GAMBLING, { business_account_tokens: [second.account_token] }));
      const gamble = async () => (await authorized(fresh.client, { pan: card.pan as string }, 100, { mcc: '7995' })).status;
      expect(await gamble()).toBe('PENDING'); // the rule is the other business's (and this process now knows the card's rules)
      await fresh.client.accountHolders.update(user.token, { business_account_token: second.account_token });
      expect((await fresh.client.cards.retrieve(card.token)).auth_rule_tokens).toEqual([rule.token]);
      expect(await gamble()).toBe('DECLINED');
      await fresh.client.accountHolders.update(user.token, { business_account_token: first.account_token });
      expect(await gamble()).toBe('PENDING');
    });

    it('PATCH replaces business_account_tokens alone, keeps account_tokens, and moves a card rule to the account-level variant', async () => {
      const fresh = await context.server.newProgram('business patch');
      const first = await businessWithAuthorizedUser(fresh.client);
      const second = await businessWithAuthorizedUser(fresh.client);
      const rule = await createRule(fresh.client, conditionalBlock(BLOCK_GAMBLING, { account_tokens: [first.user], business_account_tokens: [first.business] }));
      expect(rule).toMatchObject({ account_tokens: [first.user], business_account_tokens: [first.business] });
      const patched = await fresh.client.authRules.v2.update(rule.token, { business_account_tokens: [second.business] });
      expect(patched).toMatchObject({ account_tokens: [first.user], business_account_tokens: [second.business] });
      expect(await fresh.client.authRules.v2.update(rule.token, { account_tokens: [] })).toMatchObject({ account_tokens: [], business_account_tokens: [second.business] });

      const cardRule = await createRule(fresh.client, conditionalBlock(BLOCK_GAMBLING, { card_tokens: [first.userCard.token] }));
      expect(await fresh.client.authRules.v2.update(cardRule.token, { business_account_tokens: [first.business] })).toMatchObject({
        card_tokens: [],
        account_tokens: [],
        business_account_tokens: [first.business],
        program_level: false,
      });
      expect(await expectError(fresh.client.authRules.v2.update(cardRule.token, { business_account_tokens: [first.business], card_tokens: [] } as never), 400)).toContain(
        'cannot be mixed',
      );
    });

    it('refuses business accounts that are unknown (404), not a business’s (422), repeated or empty (400), changing nothing', async () => {
      const fresh = await context.server.newProgram('business checks');
      const { business, user } = await businessWithAuthorizedUser(fresh.client);
      const unknown = crypto.randomUUID();
      const create = (scope: object) => createRule(fresh.client, { ...conditionalBlock(BLOCK_GAMBLING, {}), ...scope });
      expect(await expectError(create({ business_account_tokens: [business, unknown] }), 404)).toBe(`business_account_tokens[1]: account '${unknown}' not found`);
      expect(await expectError(create({ business_account_tokens: [user] }), 422)).toBe(`business_account_tokens[0]: account '${user}' is not the account of a BUSINESS account holder`);
      expect(await expectError(create({ business_account_tokens: [business, business] }), 400)).toBe(`business_account_tokens[1]: duplicate of business_account_tokens[0] ('${business}')`);
      expect(await expectError(create({ business_account_tokens: [] }), 400)).toBe('business_account_tokens: must name at least one account');
      expect(await expectError(create({ business_account_tokens: [business], card_tokens: [crypto.randomUUID()] }), 400)).toContain('a rule has one scope');
      expect(await expectError(create({ business_account_tokens: [business], program_level: true }), 400)).toContain('a rule has one scope');
      expect((await fresh.client.authRules.v2.list()).data).toEqual([]);
      const rule = await create({ business_account_tokens: [business] });
      expect(await expectError(fresh.client.authRules.v2.update(rule.token, { business_account_tokens: [user] }), 422)).toContain('is not the account of a BUSINESS account holder');
      expect(await fresh.client.authRules.v2.retrieve(rule.token)).toEqual(rule);
      expect(await expectError(fresh.client.authRules.v2.list({ business_account_token: 'nope' }), 400)).toBe('business_account_token: must be a valid uuid');
    });
  });

  it('deletes a rule (204, empty body); it is gone afterwards', async () => {
    const rule = await createRule(client, conditionalBlock(BLOCK_GAMBLING, { card_tokens: [card.token] }));
    const response = await context.server.request('DELETE', `/v2/auth_rules/${rule.token}`, { apiKey: context.program.apiKey });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    await expectError(v2().retrieve(rule.token), 404);
    await expectError(v2().del(rule.token), 404);
    expect((await client.cards.retrieve(card.token)).auth_rule_tokens).not.toContain(rule.token);
  });

  it('lists newest first with filters (account_token, business_account_token, card_token, event_stream, scope) and cursors', async () => {
    const fresh = await context.server.newProgram('lists');
    const freshCard = await newCard(fresh.client);
    const freshAccount = await acceptedAccountToken(fresh.client);
    const program = await createRule(fresh.client, conditionalBlock(BLOCK_GAMBLING));
    const byAccount = await createRule(fresh.client, velocityLimit({ limit_count: 3 }, { account_tokens: [freshAccount] }));
    const byCard = await createRule(fresh.client, merchantLock([{ merchant_id: 'M1' }], { card_tokens: [freshCard.token] }));
    const threeDs = await createRule(fresh.client, threeDsAction('DECLINE', [{ attribute: 'MCC', operation: 'IS_ONE_OF', value: ['5411'] }], { card_tokens: [freshCard.token] }));
    const list = async (query: Lithic.AuthRules.V2ListParams) => (await fresh.client.authRules.v2.list({ page_size: 100, ...query })).data.map((rule) => rule.token);

    expect(await list({})).toEqual([threeDs.token, byCard.token, byAccount.token, program.token]);
    expect(await list({ account_token: freshAccount })).toEqual([byAccount.token]);
    expect(await list({ card_token: freshCard.token })).toEqual([threeDs.token, byCard.token]);
    expect(await list({ event_stream: 'THREE_DS_AUTHENTICATION' })).toEqual([threeDs.token]);
    expect(await list({ scope: 'PROGRAM' })).toEqual([program.token]);
    expect(await list({ scope: 'ACCOUNT' })).toEqual([byAccount.token]);
    expect(await list({ scope: 'CARD', event_stream: 'AUTHORIZATION' })).toEqual([byCard.token]);
    expect(await list({ scope: 'BUSINESS_ACCOUNT' })).toEqual([]);
    // The SDK's filter by business account: no rule is bound to one here.
    expect(await list({ business_account_token: freshAccount })).toEqual([]);
    expect(await list({ scope: 'ANY' })).toHaveLength(4);
    expect(await list({ card_token: crypto.randomUUID() })).toEqual([]);
    const paged: PagedList = (query) => fresh.client.authRules.v2.list(query);
    await expectPagedBothWays(paged, { card_token: freshCard.token }, [threeDs.token, byCard.token]);
    await expectPagedBothWays(paged, { card_token: freshCard.token, scope: 'CARD', event_stream: 'AUTHORIZATION' }, [byCard.token]);

    const seen: string[] = [];
    for await (const rule of fresh.client.authRules.v2.list({ page_size: 1 })) seen.push(rule.token);
    expect(seen).toEqual(await list({}));
    const before = await fresh.client.authRules.v2.list({ ending_before: program.token, page_size: 2 });
    expect(before.data.map((rule) => rule.token)).toEqual([byCard.token, byAccount.token]);
    const listed = (await fresh.client.authRules.v2.list({ card_token: freshCard.token })).data.find((rule) => rule.token === byCard.token);
    expect(listed).toEqual(byCard);
    expect(await expectError(fresh.client.authRules.v2.list({ scope: 'EVERYWHERE' as never }), 400)).toContain('scope: must be one of');

    // A cursor naming a deleted rule still pages the card's rules (the SDK's "list and delete each").
    await fresh.client.authRules.v2.del(threeDs.token);
    expect(await list({ card_token: freshCard.token, starting_after: threeDs.token })).toEqual([byCard.token]);
    expect(await list({ card_token: freshCard.token, ending_before: threeDs.token })).toEqual([]);
  });

  it('shows on cards and accounts the ACTIVE rules that apply to them (auth_rule_tokens)', async () => {
    const fresh = await context.server.newProgram('applicable');
    const holderAccount = await acceptedAccountToken(fresh.client);
    const first = await newCard(fresh.client, holderAccount);
    const second = await newCard(fresh.client, holderAccount);
    const elsewhere = await newCard(fresh.client);
    const program = await createRule(fresh.client, conditionalBlock(BLOCK_GAMBLING, { program_level: true, excluded_card_tokens: [second.token] }));
    const accountRule = await createRule(fresh.client, velocityLimit({ limit_count: 3 }, { account_tokens: [holderAccount] }));
    const cardRule = await createRule(fresh.client, merchantLock([{ merchant_id: 'M1' }], { card_tokens: [second.token] }));
    const inactive = await createRule(fresh.client, conditionalBlock(BLOCK_GAMBLING, { card_tokens: [first.token] }));
    await fresh.client.authRules.v2.update(inactive.token, { state: 'INACTIVE' });

    const tokensOf = async (token: string) => (await fresh.client.cards.retrieve(token)).auth_rule_tokens;
    expect(await tokensOf(first.token)).toEqual([program.token, accountRule.token]);
    expect(await tokensOf(second.token)).toEqual([accountRule.token, cardRule.token]);
    expect(await tokensOf(elsewhere.token)).toEqual([program.token]);
    const listed = (await fresh.client.cards.list({ account_token: holderAccount })).data;
    expect(Object.fromEntries(listed.map((c) => [c.token, c.auth_rule_tokens]))).toEqual({
      [first.token]: [program.token, accountRule.token],
      [second.token]: [accountRule.token, cardRule.token],
    });
    expect((await fresh.client.accounts.retrieve(holderAccount)).auth_rule_tokens).toEqual([program.token, accountRule.token]);
    expect((await fresh.client.accounts.retrieve(elsewhere.account_token)).auth_rule_tokens).toEqual([program.token]);
  });

  it('keeps programs apart: another program sees none of the rules and cannot change them', async () => {
    const rule = await createRule(client, conditionalBlock(BLOCK_GAMBLING, { card_tokens: [card.token] }));
    const stranger = await context.server.newProgram('other');
    const other = stranger.client.authRules.v2;
    await expectError(other.retrieve(rule.token), 404);
    await expectError(other.update(rule.token, { name: 'mine' }), 404);
    await expectError(other.draft(rule.token, { parameters: null }), 404);
    await expectError(other.promote(rule.token), 404);
    await expectError(other.del(rule.token), 404);
    await expectError(other.retrieveReport(rule.token, { begin: '2020-01-01', end: '2020-01-01' }), 404);
    expect((await other.list()).data).toEqual([]);
    expect(await expectError(createRule(stranger.client, conditionalBlock(BLOCK_GAMBLING, { card_tokens: [card.token] })), 404)).toContain('card_tokens[0]');
    expect(await v2().retrieve(rule.token)).toEqual(rule);
  });

  it('replays a create with the same Idempotency-Key instead of creating a second rule', async () => {
    const key = crypto.randomUUID();
    const body = conditionalBlock(BLOCK_GAMBLING, { card_tokens: [otherCard.token] }, 'idempotent');
    const first = await client.authRules.v2.create(body as never, { headers: { 'Idempotency-Key': key } });
    const second = await client.authRules.v2.create(body as never, { headers: { 'Idempotency-Key': key } });
    expect(second).toEqual(first);
    const named = (await v2().list({ card_token: otherCard.token, page_size: 100 })).data.filter((rule: AuthRule) => rule.name === 'idempotent');
    expect(named).toHaveLength(1);
  });

  it('answers 404 for unknown rules and 400 for malformed tokens', async () => {
    await expectError(v2().retrieve(crypto.randomUUID()), 404);
    expect(await expectError(v2().retrieve('not-a-uuid'), 400)).toBe('auth_rule_token: must be a valid uuid');
  });
});
