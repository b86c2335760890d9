import crypto from 'node:crypto';
import Lithic from 'lithic';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiFailure } from '../testing/api-errors.js';
import { acceptedAccountToken, enroll, kybBody, kycBody, US_ADDRESS } from '../testing/enrollment.js';
import { frozenWallClock } from '../testing/clock.js';
import { changedLastAt, describeWithDb, type TestProgram, useTestServer } from '../testing/harness.js';
import { NOT_VISIBLE_TEXTS, notEmptyOrVisibleMessage, notVisibleMessage, VISIBLE_TEXT } from '../testing/visible-text.js';
import { isLuhnValid, luhnCheckDigit, numberingKey, panForSequence } from './pan.js';
import { recordApprovedAuthorization, recordPinAttempt } from './service.js';
import { cardUsability } from './spend.js';
import * as store from './store.js';

type Card = Lithic.Card;

const SHIPPING = { ...US_ADDRESS, first_name: 'Janet', last_name: 'Yellen' };
/** The text fields of a shipping address, and the 400 message of a value in one that shows nothing (those that may be empty say so). */
const SHIPPING_TEXTS: Array<[string, (field: string) => string]> = [
  ...(['first_name', 'last_name', 'address1', 'city', 'postal_code'] as const).map((field): [string, (field: string) => string] => [field, notVisibleMessage]),
  ...(['address2', 'line2_text', 'state'] as const).map((field): [string, (field: string) => string] => [field, notEmptyOrVisibleMessage]),
];
const pinBlock = (pin: string) => Buffer.from(pin).toString('base64');

describeWithDb('cards', () => {
  const context = useTestServer({ config: { logLevel: 'trace' } });
  /** Every PAN and CVV this file sees, to look for them in the logs at the end. */
  const secretsSeen: Array<{ pan: string; cvv: string }> = [];

  async function createCard(params: Lithic.CardCreateParams, client = context.program.client): Promise<Card> {
    const card = await client.cards.create(params);
    secretsSeen.push({ pan: card.pan as string, cvv: card.cvv as string });
    return card;
  }

  async function cardCount(client = context.program.client): Promise<number> {
    let count = 0;
    for await (const card of client.cards.list({ page_size: 100 })) count += card.token ? 1 : 0;
    return count;
  }

  async function cardRow(token: string, programId = context.program.programId) {
    const row = await store.find(context.server.server.db.kysely, programId, token);
    if (!row) throw new Error(`card ${token} not stored`);
    return row;
  }

  function defaultAccount(client = context.program.client) {
    return client.accounts.list().then((page) => page.data.find((account) => account.account_holder === undefined) as Lithic.Account);
  }

  describe('create', () => {
    it('issues a VIRTUAL card on the default account with every field of spec 2.7', async () => {
      const card = await createCard({ type: 'VIRTUAL' });
      const account = await defaultAccount();
      const issuing = (await context.program.client.financialAccounts.list({ type: 'ISSUING' })).data.find((fa) => fa.account_token === null);
      const now = new Date();
      expect(card).toEqual({
        token: expect.stringMatching(/^[0-9a-f-]{36}$/),
        account_token: account.token,
        card_program_token: expect.stringMatching(/^[0-9a-f-]{36}$/),
        created: expect.any(String),
        funding: {
          token: issuing?.token,
          created: issuing?.created,
          last_four: issuing?.account_number?.slice(-4),
          state: 'ENABLED',
          type: 'DEPOSITORY_CHECKING',
          account_name: 'ISSUING',
        },
        last_four: card.pan?.slice(-4),
        pin_status: 'NOT_SET',
        spend_limit: 0,
        spend_limit_duration: 'TRANSACTION',
        state: 'OPEN',
        type: 'VIRTUAL',
        auth_rule_tokens: [],
        cardholder_currency: 'USD',
        exp_month: String(now.getUTCMonth() + 1).padStart(2, '0'),
        exp_year: String(now.getUTCFullYear() + 3),
        hostname: '',
        memo: '',
        pending_commands: [],
        replacement_for: null,
        network_program_token: null,
        pan: expect.stringMatching(/^\d{16}$/),
        cvv: expect.stringMatching(/^\d{3}$/),
      });
      expect(isLuhnValid(card.pan as string)).toBe(true);
      expect(await context.program.client.cards.retrieve(card.token)).toEqual(card);
      const listed = (await context.program.client.cards.list()).data.find((item) => item.token === card.token);
      const { pan: _pan, cvv: _cvv, ...withoutSecrets } = card;
      expect(listed).toEqual(withoutSecrets);
    });

    it('numbers a program’s cards under one BIN with unique, Luhn-valid PANs', async () => {
      const numbered = await context.server.newProgram('numbered');
      const cards = [];
      for (let i = 0; i < 25; i++) cards.push(await createCard({ type: 'VIRTUAL' }, numbered.client));
      const pans = cards.map((card) => card.pan as string);
      expect(new Set(pans).size).toBe(25);
      expect(pans.every(isLuhnValid)).toBe(true);
      expect(new Set(pans.map((pan) => pan.slice(0, 6))).size).toBe(1);
      expect(new Set(cards.map((card) => card.card_program_token)).size).toBe(1);
      const other = await createCard({ type: 'VIRTUAL' });
      expect(other.card_program_token).not.toBe(cards[0]?.card_program_token);
    });

    it("accepts Lithic's sandbox test card programs: the card shows the one asked for, numbered with the program's cards", async () => {
      const sandbox = await context.server.newProgram('sandbox card programs');
      const own = await createCard({ type: 'VIRTUAL' }, sandbox.client);
      const tokens = ['00000000-0000-0000-1000-000000000000', '00000000-0000-0000-2000-000000000000'];
      const cards = [];
      for (const card_program_token of tokens) cards.push(await createCard({ type: 'VIRTUAL', card_program_token }, sandbox.client));
      expect(cards.map((card) => card.card_program_token)).toEqual(tokens);
      expect(await sandbox.client.cards.retrieve(cards[0]?.token as string)).toMatchObject({ card_program_token: tokens[0] });
      expect(new Set([own, ...cards].map((card) => card.pan)).size).toBe(3);
      expect((await apiFailure(sandbox.client.cards.create({ type: 'VIRTUAL', card_program_token: '00000000-0000-0000-3000-000000000000' }))).status).toBe(404);
    });

    it('creates cards concurrently with distinct PANs', async () => {
      const busy = await context.server.newProgram('busy');
      const cards = await Promise.all(Array.from({ length: 20 }, () => createCard({ type: 'VIRTUAL' }, busy.client)));
      expect(new Set(cards.map((card) => card.pan)).size).toBe(20);
    });

    it('takes every optional setting and is funded by its account’s ISSUING account', async () => {
      const accountToken = await acceptedAccountToken(context.program.client);
      const first = await createCard({ type: 'VIRTUAL', account_token: accountToken });
      const artToken = crypto.randomUUID();
      const card = await createCard({
        type: 'VIRTUAL',
        account_token: accountToken,
        card_program_token: first.card_program_token,
        memo: 'Groceries',
        spend_limit: 25_000,
        spend_limit_duration: 'MONTHLY',
        state: 'PAUSED',
        pin: pinBlock('1234'),
        exp_month: '02',
        exp_year: '2099',
        digital_card_art_token: artToken,
      });
      const issuing = (await context.program.client.financialAccounts.list({ account_token: accountToken })).data[0];
      expect(card).toMatchObject({
        account_token: accountToken,
        memo: 'Groceries',
        spend_limit: 25_000,
        spend_limit_duration: 'MONTHLY',
        state: 'PAUSED',
        pin_status: 'OK',
        exp_month: '02',
        exp_year: '2099',
        digital_card_art_token: artToken,
        funding: { token: issuing?.token, last_four: issuing?.account_number?.slice(-4), state: 'ENABLED' },
      });
      expect(JSON.stringify(card)).not.toContain(pinBlock('1234'));
    });

    it('accepts a JSON PIN block', async () => {
      const card = await createCard({ type: 'PHYSICAL', shipping_address: SHIPPING, pin: pinBlock(JSON.stringify({ nonce: 7, pin: '987654' })) });
      expect(card.pin_status).toBe('OK');
    });

    it.each(['VIRTUAL', 'SINGLE_USE', 'MERCHANT_LOCKED', 'UNLOCKED', 'DIGITAL_WALLET'] as const)('creates a %s card OPEN', async (type) => {
      expect(await createCard({ type })).toMatchObject({ type, state: 'OPEN' });
    });

    it('starts a PHYSICAL card PENDING_FULFILLMENT (or PAUSED) with its shipping details', async () => {
      const physical = await createCard({
        type: 'PHYSICAL',
        shipping_address: { ...SHIPPING, address2: 'Unit 5A', email: 'janet@example.com', phone_number: '+15555550100' },
        shipping_method: 'EXPEDITED',
        product_id: '100',
        carrier: { qr_code_url: 'https://example.com/activate' },
      });
      expect(physical).toMatchObject({ type: 'PHYSICAL', state: 'PENDING_FULFILLMENT', product_id: '100' });
      const paused = await createCard({ type: 'PHYSICAL', shipping_address: SHIPPING, state: 'PAUSED' });
      expect(paused.state).toBe('PAUSED');
      const row = await cardRow(physical.token);
      expect(JSON.parse(row.shipping as string)).toMatchObject({ shipping_method: 'EXPEDITED', shipping_address: { first_name: 'Janet', address2: 'Unit 5A' } });
    });

    it('ships abroad: a Canadian province code, and an empty state outside the US and Canada', async () => {
      const canada = { ...SHIPPING, country: 'CAN', state: 'ON', postal_code: 'K1A 0B1' };
      expect((await createCard({ type: 'PHYSICAL', shipping_address: canada })).state).toBe('PENDING_FULFILLMENT');
      const british = { ...SHIPPING, country: 'GBR', postal_code: 'SW1A 1AA' };
      for (const shipping_address of [{ ...british, state: '' }, { ...british, state: 'Greater London' }]) {
        const card = await createCard({ type: 'PHYSICAL', shipping_address });
        expect(JSON.parse((await cardRow(card.token)).shipping as string).shipping_address).toEqual(shipping_address);
      }
    });

    it('replaces a card: the new one names it and the old one records why', async () => {
      const accountToken = await acceptedAccountToken(context.program.client);
      const lost = await createCard({ type: 'VIRTUAL', account_token: accountToken });
      const replacement = await createCard({
        type: 'VIRTUAL',
        replacement_for: lost.token,
        replacement_substatus: 'LOST',
        replacement_comment: 'Lost on the train',
      });
      expect(replacement).toMatchObject({ replacement_for: lost.token, account_token: accountToken });
      expect(await context.program.client.cards.retrieve(lost.token)).toMatchObject({ substatus: 'LOST', comment: 'Lost on the train', state: 'CLOSED' });

      const elsewhere = await acceptedAccountToken(context.program.client);
      const moved = await createCard({ type: 'VIRTUAL', replacement_for: lost.token, replacement_account_token: elsewhere });
      expect(moved.account_token).toBe(elsewhere);

      // A token in upper case names the same card, as everywhere else.
      const spelled = await createCard({ type: 'VIRTUAL', replacement_for: lost.token.toUpperCase(), replacement_substatus: 'DAMAGED' });
      expect(spelled).toMatchObject({ replacement_for: lost.token, account_token: accountToken });
      expect((await context.program.client.cards.retrieve(lost.token)).substatus).toBe('DAMAGED');
    });

    it('closes the replaced card at once, whatever its state, and its authorizations then decline CARD_CLOSED; a replaced PHYSICAL card never ships', async () => {
      const { client, apiKey } = await context.server.newProgram('replacement closes');
      const physical = { type: 'PHYSICAL', shipping_address: SHIPPING } as const;
      const open = await createCard({ type: 'VIRTUAL' }, client);
      const paused = await createCard({ type: 'VIRTUAL', state: 'PAUSED' }, client);
      const closed = await createCard({ type: 'VIRTUAL' }, client);
      await client.cards.update(closed.token, { state: 'CLOSED' });
      const unshipped = await createCard(physical, client);
      const replacements = [];
      for (const card of [open, paused, closed, unshipped]) {
        replacements.push(await createCard({ ...(card.type === 'PHYSICAL' ? physical : { type: 'VIRTUAL' }), replacement_for: card.token }, client));
      }
      expect((await Promise.all([open, paused, closed, unshipped].map((card) => client.cards.retrieve(card.token)))).map((card) => card.state)).toEqual(['CLOSED', 'CLOSED', 'CLOSED', 'CLOSED']);
      expect(replacements.map((card) => card.state)).toEqual(['OPEN', 'OPEN', 'OPEN', 'PENDING_FULFILLMENT']);

      const declined = await client.transactions.simulateAuthorization({ amount: 100, descriptor: 'SHOP', pan: open.pan as string });
      expect(await client.transactions.retrieve(declined.token as string)).toMatchObject({ status: 'DECLINED', result: 'CARD_CLOSED' });
      const approved = await client.transactions.simulateAuthorization({ amount: 100, descriptor: 'SHOP', pan: replacements[0]?.pan as string });
      expect((await client.transactions.retrieve(approved.token as string)).result).toBe('APPROVED');

      const tomorrow = new Date(Date.parse(unshipped.created) + 86_400_000);
      tomorrow.setUTCHours(0, 0, 1, 0);
      expect((await context.server.request('POST', '/v1/simulate/clock', { apiKey, body: { now: tomorrow.toISOString() } })).status).toBe(200);
      const shipped = (await client.events.list({ event_types: ['card.shipped'], with_content: true })).data.map((event) => event.payload['card_token']);
      expect(shipped).toEqual([replacements[3]?.token]);
    });

    it('refuses a blank replacement_comment or one with a control character (400 naming it), creating nothing and leaving the replaced card as it was; takes an empty one', async () => {
      const lost = await createCard({ type: 'VIRTUAL' });
      const before = await cardCount();
      for (const replacement_comment of NOT_VISIBLE_TEXTS) {
        const body = { type: 'VIRTUAL', replacement_for: lost.token, replacement_substatus: 'LOST', replacement_comment } as const;
        expect(await apiFailure(context.program.client.cards.create(body))).toEqual({ status: 400, message: notEmptyOrVisibleMessage('replacement_comment') });
      }
      expect(await cardCount()).toBe(before);
      expect(await context.program.client.cards.retrieve(lost.token)).toEqual(lost);
      await createCard({ type: 'VIRTUAL', replacement_for: lost.token, replacement_comment: VISIBLE_TEXT });
      expect((await context.program.client.cards.retrieve(lost.token)).comment).toBe(VISIBLE_TEXT);
      await createCard({ type: 'VIRTUAL', replacement_for: lost.token, replacement_comment: '' });
      expect((await context.program.client.cards.retrieve(lost.token)).comment).toBe('');
    });

    it('never dates a replacement (nor its card.created event) before the replaced card’s last change', async () => {
      const { client, programId } = context.program;
      const lost = await createCard({ type: 'VIRTUAL' });
      const laterMs = Date.parse(lost.created) + 3_600_000;
      // As if a PATCH at a clock moved an hour ahead had committed first.
      await changedLastAt(context.server.server.db, 'cards', programId, lost.token, laterMs);
      const replacement = await createCard({ type: 'VIRTUAL', replacement_for: lost.token, replacement_comment: 'Lost' });
      expect(Date.parse(replacement.created)).toBe(laterMs);
      const events = (await client.events.list({ event_types: ['card.created'], page_size: 100, with_content: true })).data;
      const event = events.find((item) => (item.payload as { card_token?: string }).card_token === replacement.token);
      expect(Date.parse(event?.created as string)).toBe(laterMs);
      expect((await cardRow(lost.token)).updated_ms).toBe(laterMs);
    });

    it('replaces a PHYSICAL card with a PHYSICAL card and a VIRTUAL one with a VIRTUAL card only (422 otherwise)', async () => {
      const physical = await createCard({ type: 'PHYSICAL', shipping_address: SHIPPING });
      const virtual = await createCard({ type: 'VIRTUAL' });
      const before = await cardCount();
      for (const [replaced, type, extra] of [
        [physical, 'VIRTUAL', {}],
        [physical, 'SINGLE_USE', {}],
        [virtual, 'PHYSICAL', { shipping_address: SHIPPING }],
      ] as const) {
        expect(await apiFailure(context.program.client.cards.create({ type, replacement_for: replaced.token, replacement_substatus: 'LOST', ...extra }))).toEqual({
          status: 422,
          message: `type: card '${replaced.token}' is ${replaced.type}, so its replacement must be ${replaced.type} too`,
        });
      }
      expect(await cardCount()).toBe(before);
      expect(await context.program.client.cards.retrieve(physical.token)).not.toHaveProperty('substatus');
      expect((await createCard({ type: 'PHYSICAL', shipping_address: SHIPPING, replacement_for: physical.token })).replacement_for).toBe(physical.token);
      expect((await createCard({ type: 'VIRTUAL', replacement_for: virtual.token })).replacement_for).toBe(virtual.token);
    });

    const invalid: Array<[string, Record<string, unknown>, string]> = [
      ['no type', {}, 'type: is required'],
      ['unknown type', { type: 'PLASTIC' }, 'type: must be one of MERCHANT_LOCKED, PHYSICAL, SINGLE_USE, VIRTUAL, UNLOCKED, DIGITAL_WALLET'],
      ['bad account token', { type: 'VIRTUAL', account_token: 'nope' }, 'account_token: must be a valid uuid'],
      ['negative limit', { type: 'VIRTUAL', spend_limit: -1 }, 'spend_limit: must be >= 0'],
      ['fractional limit', { type: 'VIRTUAL', spend_limit: 10.5 }, 'spend_limit: must be integer'],
      ['unknown duration', { type: 'VIRTUAL', spend_limit_duration: 'WEEKLY' }, 'spend_limit_duration: must be one of ANNUALLY, FOREVER, MONTHLY, TRANSACTION'],
      ['created CLOSED', { type: 'VIRTUAL', state: 'CLOSED' }, 'state: must be one of OPEN, PAUSED'],
      ['memo too long', { type: 'VIRTUAL', memo: 'm'.repeat(513) }, 'memo: must NOT have more than 512 characters'],
      ['PIN on SINGLE_USE', { type: 'SINGLE_USE', pin: pinBlock('1234') }, 'pin: only cards of type PHYSICAL or VIRTUAL take a PIN (this card is SINGLE_USE)'],
      ['PIN on MERCHANT_LOCKED', { type: 'MERCHANT_LOCKED', pin: pinBlock('1234') }, 'pin: only cards of type PHYSICAL or VIRTUAL take a PIN (this card is MERCHANT_LOCKED)'],
      ['PIN not base64', { type: 'VIRTUAL', pin: '12$4' }, 'pin: must be a base64 PIN block holding 4 to 12 digits (the digits, or JSON {"pin": "1234"})'],
      ['PIN too short', { type: 'VIRTUAL', pin: pinBlock('123') }, 'pin: must be a base64 PIN block holding 4 to 12 digits (the digits, or JSON {"pin": "1234"})'],
      ['PIN with letters', { type: 'VIRTUAL', pin: pinBlock('12ab') }, 'pin: must be a base64 PIN block holding 4 to 12 digits (the digits, or JSON {"pin": "1234"})'],
      ['only exp_month', { type: 'VIRTUAL', exp_month: '12' }, 'exp_year: give exp_month and exp_year together, or neither'],
      ['exp_month 13', { type: 'VIRTUAL', exp_month: '13', exp_year: '2099' }, 'exp_month: must be two digits, 01 to 12'],
      ['exp_year short', { type: 'VIRTUAL', exp_month: '12', exp_year: '99' }, 'exp_year: must be four digits (YYYY)'],
      ['expired', { type: 'VIRTUAL', exp_month: '01', exp_year: '2020' }, 'exp_year: the expiry date must not be in the past'],
      ['shipping on VIRTUAL', { type: 'VIRTUAL', shipping_address: SHIPPING }, 'shipping_address: only applies to cards of type PHYSICAL'],
      ['product on VIRTUAL', { type: 'VIRTUAL', product_id: '1' }, 'product_id: only applies to cards of type PHYSICAL'],
      ['PHYSICAL unshipped', { type: 'PHYSICAL' }, 'shipping_address: is required for cards of type PHYSICAL'],
      ['shipping ZIP', { type: 'PHYSICAL', shipping_address: { ...SHIPPING, postal_code: '123' } }, 'shipping_address.postal_code: must be a five-digit ZIP or a nine-digit ZIP+4 (12345 or 12345-6789)'],
      ['shipping country', { type: 'PHYSICAL', shipping_address: { ...SHIPPING, country: 'usa' } }, 'shipping_address.country: must be an uppercase ISO 3166-1 alpha-3 code, e.g. USA'],
      ['shipping country not ISO 3166-1', { type: 'PHYSICAL', shipping_address: { ...SHIPPING, country: 'ZZZ' } }, 'shipping_address.country: must be an uppercase ISO 3166-1 alpha-3 code, e.g. USA'],
      ['Canadian province by name', { type: 'PHYSICAL', shipping_address: { ...SHIPPING, country: 'CAN', state: 'Ontario', postal_code: 'K1A 0B1' } }, 'shipping_address.state: must be an uppercase two-letter Canadian province or territory code (ISO 3166-2, e.g. ON)'],
      ['Canadian province in lower case', { type: 'PHYSICAL', shipping_address: { ...SHIPPING, country: 'CAN', state: 'on', postal_code: 'K1A 0B1' } }, 'shipping_address.state: must be an uppercase two-letter Canadian province or territory code (ISO 3166-2, e.g. ON)'],
      ['Canadian address without province', { type: 'PHYSICAL', shipping_address: { ...SHIPPING, country: 'CAN', state: '', postal_code: 'K1A 0B1' } }, 'shipping_address.state: must be an uppercase two-letter Canadian province or territory code (ISO 3166-2, e.g. ON)'],
      ['US address without state', { type: 'PHYSICAL', shipping_address: { ...SHIPPING, state: '' } }, 'shipping_address.state: must be an uppercase two-letter US state code (ISO 3166-2, e.g. NY)'],
      ['embossed name', { type: 'PHYSICAL', shipping_address: { ...SHIPPING, first_name: 'Maximiliana', last_name: 'Featherstonehaugh' } }, 'shipping_address.last_name: first_name and last_name together must not exceed 25 characters'],
      ['expedited without contact', { type: 'PHYSICAL', shipping_address: SHIPPING, shipping_method: 'EXPEDITED' }, 'shipping_address: email and phone_number are required for shipping_method EXPEDITED'],
      ['shipping method', { type: 'PHYSICAL', shipping_address: SHIPPING, shipping_method: 'PIGEON' }, 'shipping_method: must be one of 2_DAY, EXPEDITED, EXPRESS, PRIORITY, STANDARD, STANDARD_WITH_TRACKING'],
      ['orphan replacement field', { type: 'VIRTUAL', replacement_comment: 'x' }, 'replacement_comment: only applies together with replacement_for'],
      ['both accounts', { type: 'VIRTUAL', replacement_for: crypto.randomUUID(), account_token: crypto.randomUUID(), replacement_account_token: crypto.randomUUID() }, 'replacement_account_token: give either account_token or replacement_account_token, not both'],
      ['art token', { type: 'VIRTUAL', digital_card_art_token: 'art' }, 'digital_card_art_token: must be a valid uuid'],
      ['unknown field', { type: 'VIRTUAL', colour: 'gold' }, 'colour: is not a recognised field'],
      ['NUL in memo', { type: 'VIRTUAL', memo: 'a\u0000b' }, 'memo: must not contain the NUL character (U+0000)'],
      ...NOT_VISIBLE_TEXTS.map((memo): [string, Record<string, unknown>, string] => [`memo ${JSON.stringify(memo)}`, { type: 'VIRTUAL', memo }, notEmptyOrVisibleMessage('memo')]),
      ...['', ...NOT_VISIBLE_TEXTS].map((product_id): [string, Record<string, unknown>, string] => [
        `product_id ${JSON.stringify(product_id)}`,
        { type: 'PHYSICAL', shipping_address: SHIPPING, product_id },
        product_id === '' ? 'product_id: must NOT have fewer than 1 characters' : notVisibleMessage('product_id'),
      ]),
      ...SHIPPING_TEXTS.flatMap(([field, message]) =>
        NOT_VISIBLE_TEXTS.map((value): [string, Record<string, unknown>, string] => [
          `shipping_address.${field} ${JSON.stringify(value)}`,
          { type: 'PHYSICAL', shipping_address: { ...SHIPPING, [field]: value } },
          message(`shipping_address.${field}`),
        ]),
      ),
    ];
    it.each(invalid)('refuses %s with 400 naming the field, and creates nothing', async (_name, body, message) => {
      const before = await cardCount();
      expect(await apiFailure(context.program.client.cards.create(body as never))).toEqual({ status: 400, message });
      expect(await cardCount()).toBe(before);
    });

    it('answers 404 for an account, card program or replaced card the program does not have', async () => {
      const before = await cardCount();
      const unknown = crypto.randomUUID();
      expect(await apiFailure(context.program.client.cards.create({ type: 'VIRTUAL', account_token: unknown }))).toEqual({
        status: 404,
        message: `account_token: account '${unknown}' not found`,
      });
      expect((await apiFailure(context.program.client.cards.create({ type: 'VIRTUAL', card_program_token: unknown }))).message).toContain('card_program_token');
      expect((await apiFailure(context.program.client.cards.create({ type: 'VIRTUAL', replacement_for: unknown }))).message).toContain('replacement_for');
      expect(await cardCount()).toBe(before);
    });

    it('answers 422 for an account that is not ACTIVE or whose holder is not ACCEPTED', async () => {
      const before = await cardCount();
      const paused = await acceptedAccountToken(context.program.client);
      await context.program.client.accounts.update(paused, { state: 'PAUSED' });
      const closed = await acceptedAccountToken(context.program.client);
      await context.program.client.accounts.update(closed, { state: 'CLOSED' });
      const pending = await enroll(context.program.client, kybBody());
      const rejected = await enroll(context.program.client, { ...kycBody(), individual: { ...kycBody().individual, government_id: '000-00-0004' } });
      for (const [accountToken, state] of [
        [paused, 'PAUSED'],
        [closed, 'CLOSED'],
        [pending.account_token, 'PENDING_REVIEW'],
        [rejected.account_token, 'CLOSED'],
      ] as const) {
        const refused = await apiFailure(context.program.client.cards.create({ type: 'VIRTUAL', account_token: accountToken }));
        expect(refused.status).toBe(422);
        expect(refused.message).toMatch(new RegExp(`^account_token: .*${state}`));
      }
      expect(await cardCount()).toBe(before);
      await context.program.client.accountHolders.simulateEnrollmentReview({ account_holder_token: pending.token, status: 'ACCEPTED' });
      expect((await createCard({ type: 'VIRTUAL', account_token: pending.account_token })).account_token).toBe(pending.account_token);
    });

    it('replays an idempotent creation without keeping its PAN, CVV or PIN in the clear', async () => {
      const before = await cardCount();
      const options = { headers: { 'Idempotency-Key': crypto.randomUUID() } };
      const params: Lithic.CardCreateParams = { type: 'VIRTUAL', pin: pinBlock('2468') };
      const first = await context.program.client.cards.create(params, options).withResponse();
      const second = await context.program.client.cards.create(params, options).withResponse();
      secretsSeen.push({ pan: first.data.pan as string, cvv: first.data.cvv as string });
      expect(second.data).toEqual(first.data);
      expect(second.response.headers.get('idempotent-replayed')).toBe('true');
      expect(await cardCount()).toBe(before + 1);
      const records = await context.server.server.db.kysely.selectFrom('idempotency_keys').selectAll().where('program_id', '=', context.program.programId).execute();
      const stored = JSON.stringify(records);
      expect(records.length).toBeGreaterThan(0);
      expect(stored).not.toContain(first.data.pan);
      expect(stored).not.toContain(`"cvv":"${first.data.cvv}"`);
      expect(stored).not.toContain(pinBlock('2468'));
    });

    it('keeps PAN and CVV encrypted at rest, findable by PAN within the program only', async () => {
      const card = await createCard({ type: 'VIRTUAL' });
      const row = await cardRow(card.token);
      const stored = JSON.stringify(row);
      expect(stored).not.toContain(card.pan);
      // Three digits can turn up by chance in a ciphertext: check it is one, of this CVV.
      expect(row.cvv_encrypted).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
      const { secrets } = context.server.server.app.deps;
      expect(secrets.decrypt(row.cvv_encrypted)).toBe(card.cvv);
      expect(secrets.decrypt(row.pan_encrypted)).toBe(card.pan);
      expect(row.pan_lookup_hash).toBe(secrets.lookupHash(card.pan as string));
      const exec = context.server.server.db.kysely;
      expect((await store.findCardByPan(exec, secrets, context.program.programId, card.pan as string))?.token).toBe(card.token);
      const other = await context.server.newProgram('pan lookup');
      expect(await store.findCardByPan(exec, secrets, other.programId, card.pan as string)).toBeUndefined();
    });
  });

  describe('update (seed 4.7)', () => {
    it('changes only the supplied properties and answers with PAN and CVV', async () => {
      const card = await createCard({ type: 'VIRTUAL', memo: 'Before', spend_limit: 100, spend_limit_duration: 'FOREVER' });
      const memo = await context.program.client.cards.update(card.token, { memo: 'After' });
      expect(memo).toEqual({ ...card, memo: 'After' });
      const limit = await context.program.client.cards.update(card.token, { spend_limit: 0 });
      expect(limit).toEqual({ ...card, memo: 'After', spend_limit: 0 });
      const duration = await context.program.client.cards.update(card.token, { spend_limit: 50_000, spend_limit_duration: 'ANNUALLY' });
      expect(duration).toEqual({ ...card, memo: 'After', spend_limit: 50_000, spend_limit_duration: 'ANNUALLY' });
      const art = crypto.randomUUID();
      const rest = await context.program.client.cards.update(card.token, { digital_card_art_token: art, comment: 'VIP', substatus: 'INTERNAL_REVIEW' });
      expect(rest).toEqual({ ...duration, digital_card_art_token: art, comment: 'VIP', substatus: 'INTERNAL_REVIEW' });
      expect(await context.program.client.cards.update(card.token, {})).toEqual(rest);
      expect(await context.program.client.cards.retrieve(card.token)).toEqual(rest);
    });

    it("takes SDK 0.119's network_program_token (null until set, as the SDK documents), shows it from then on, and refuses one that is not a uuid", async () => {
      const card = await createCard({ type: 'VIRTUAL' });
      expect(card.network_program_token).toBeNull();
      const unset = (await context.program.client.cards.list({ page_size: 100 })).data.find((item) => item.token === card.token);
      expect(unset?.network_program_token).toBeNull();
      const networkProgram = crypto.randomUUID();
      const updated = await context.program.client.cards.update(card.token, { network_program_token: networkProgram });
      expect(updated).toEqual({ ...card, network_program_token: networkProgram });
      expect(await context.program.client.cards.retrieve(card.token)).toEqual(updated);
      const listed = (await context.program.client.cards.list({ page_size: 100 })).data.find((item) => item.token === card.token);
      expect(listed?.network_program_token).toBe(networkProgram);
      expect(await apiFailure(context.program.client.cards.update(card.token, { network_program_token: 'alm' }))).toEqual({
        status: 400,
        message: 'network_program_token: must be a valid uuid',
      });
    });

    it('moves updated only when the card changes, to the program clock', async () => {
      const clocked = await context.server.newProgram('card clock');
      const card = await createCard({ type: 'VIRTUAL', memo: 'same' }, clocked.client);
      const created = (await cardRow(card.token, clocked.programId)).updated_ms;
      const later = Date.parse(card.created) + 86_400_000;
      await context.server.request('POST', '/v1/simulate/clock', { apiKey: clocked.apiKey, body: { now: new Date(later).toISOString() } });
      await clocked.client.cards.update(card.token, { memo: 'same', state: 'OPEN', spend_limit: 0 });
      expect((await cardRow(card.token, clocked.programId)).updated_ms).toBe(created);
      await clocked.client.cards.update(card.token, { memo: 'changed' });
      expect((await cardRow(card.token, clocked.programId)).updated_ms).toBeGreaterThanOrEqual(later);
    });

    it('follows the state machine: OPEN ⇄ PAUSED, either → CLOSED', async () => {
      const card = await createCard({ type: 'VIRTUAL' });
      for (const state of ['PAUSED', 'PAUSED', 'OPEN', 'OPEN', 'PAUSED', 'CLOSED'] as const) {
        expect((await context.program.client.cards.update(card.token, { state })).state).toBe(state);
      }
      const open = await createCard({ type: 'VIRTUAL' });
      expect((await context.program.client.cards.update(open.token, { state: 'CLOSED' })).state).toBe('CLOSED');
    });

    it('refuses any state update of a CLOSED card with 422 and leaves it unchanged', async () => {
      const card = await createCard({ type: 'VIRTUAL', memo: 'final' });
      const closed = await context.program.client.cards.update(card.token, { state: 'CLOSED' });
      for (const state of ['OPEN', 'PAUSED', 'CLOSED'] as const) {
        expect(await apiFailure(context.program.client.cards.update(card.token, { state, memo: 'changed', spend_limit: 5 }))).toEqual({
          status: 422,
          message: 'state: the card is CLOSED, which is final',
        });
      }
      expect(await context.program.client.cards.retrieve(card.token)).toEqual(closed);
      expect((await context.program.client.cards.update(card.token, { memo: 'closed but renamed' })).memo).toBe('closed but renamed');
    });

    it('activates a PHYSICAL card: fulfilled by the daily batch, then OPEN when the client says so', async () => {
      const physicalProgram = await context.server.newProgram('physical');
      const card = await createCard({ type: 'PHYSICAL', shipping_address: SHIPPING }, physicalProgram.client);
      const paused = await createCard({ type: 'PHYSICAL', shipping_address: SHIPPING, state: 'PAUSED' }, physicalProgram.client);
      expect((await physicalProgram.client.cards.retrieve(card.token)).state).toBe('PENDING_FULFILLMENT');
      const tomorrow = new Date(Date.parse(card.created) + 86_400_000);
      tomorrow.setUTCHours(0, 0, 1, 0);
      const moved = await context.server.request('POST', '/v1/simulate/clock', { apiKey: physicalProgram.apiKey, body: { now: tomorrow.toISOString() } });
      expect(moved.status).toBe(200);
      expect((await physicalProgram.client.cards.retrieve(card.token)).state).toBe('PENDING_ACTIVATION');
      expect((await physicalProgram.client.cards.retrieve(paused.token)).state).toBe('PAUSED');
      const listed = await physicalProgram.client.cards.list({ state: 'PENDING_ACTIVATION' });
      expect(listed.data.map((item) => item.token)).toEqual([card.token]);
      expect((await physicalProgram.client.cards.update(card.token, { state: 'OPEN' })).state).toBe('OPEN');

      const unfulfilled = await createCard({ type: 'PHYSICAL', shipping_address: SHIPPING }, physicalProgram.client);
      expect((await physicalProgram.client.cards.update(unfulfilled.token, { state: 'OPEN' })).state).toBe('OPEN');
    });

    it('sets a PIN (PHYSICAL and VIRTUAL only), stored hashed and never returned', async () => {
      const card = await createCard({ type: 'VIRTUAL' });
      // Twelve digits: a short PIN can turn up by chance in the row's hex hashes and tokens.
      const pin = '483920175638';
      const updated = await context.program.client.cards.update(card.token, { pin: pinBlock(pin) });
      expect(updated).toEqual({ ...card, pin_status: 'OK' });
      const row = await cardRow(card.token);
      expect(row.pin_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.stringify(row)).not.toContain(pin);
      expect(JSON.stringify(row)).not.toContain(pinBlock(pin));
      for (const type of ['SINGLE_USE', 'MERCHANT_LOCKED', 'DIGITAL_WALLET', 'UNLOCKED'] as const) {
        const other = await createCard({ type });
        expect(await apiFailure(context.program.client.cards.update(other.token, { pin: pinBlock('4321') }))).toEqual({
          status: 400,
          message: `pin: only cards of type PHYSICAL or VIRTUAL take a PIN (this card is ${type})`,
        });
        expect((await context.program.client.cards.retrieve(other.token)).pin_status).toBe('NOT_SET');
      }
    });

    it('unblocks a PIN with pin_status OK or a new PIN, and refuses to "unblock" a card without PIN', async () => {
      const card = await createCard({ type: 'VIRTUAL', pin: pinBlock('1234') });
      const { db } = context.server.server;
      const block = async () => {
        for (let i = 0; i < 3; i++) {
          await db.transaction(async (tx) => {
            const locked = await store.lockCard(db, tx, context.program.programId, card.token);
            await recordPinAttempt(tx, context.program.programId, locked as store.CardRow, false, Date.now());
          });
        }
      };
      await block();
      expect((await context.program.client.cards.retrieve(card.token)).pin_status).toBe('BLOCKED');
      expect((await context.program.client.cards.update(card.token, { pin_status: 'OK' })).pin_status).toBe('OK');
      expect((await cardRow(card.token)).pin_failed_attempts).toBe(0);
      await block();
      expect((await context.program.client.cards.update(card.token, { pin: pinBlock('5678') })).pin_status).toBe('OK');

      const withoutPin = await createCard({ type: 'VIRTUAL' });
      expect(await apiFailure(context.program.client.cards.update(withoutPin.token, { pin_status: 'OK' }))).toEqual({
        status: 422,
        message: 'pin_status: the card has no PIN to unblock; set one with pin',
      });
      expect((await apiFailure(context.program.client.cards.update(card.token, { pin_status: 'BLOCKED' } as never))).message).toBe('pin_status: must be one of OK');
    });

    it.each([
      [{ spend_limit: -5 }, 'spend_limit: must be >= 0'],
      [{ spend_limit: '5' }, 'spend_limit: must be integer'],
      [{ spend_limit_duration: 'DAILY' }, 'spend_limit_duration: must be one of ANNUALLY, FOREVER, MONTHLY, TRANSACTION'],
      [{ state: 'PENDING_ACTIVATION' }, 'state: must be one of CLOSED, OPEN, PAUSED'],
      [{ state: 'open' }, 'state: must be one of CLOSED, OPEN, PAUSED'],
      [{ pin: '' }, 'pin: must be a base64 PIN block holding 4 to 12 digits (the digits, or JSON {"pin": "1234"})'],
      [{ pin: pinBlock('{"pin": 1234}') }, 'pin: must be a base64 PIN block holding 4 to 12 digits (the digits, or JSON {"pin": "1234"})'],
      [{ digital_card_art_token: 'x' }, 'digital_card_art_token: must be a valid uuid'],
      [{ memo: 7 }, 'memo: must be string'],
      ...NOT_VISIBLE_TEXTS.map((memo): [object, string] => [{ memo }, notEmptyOrVisibleMessage('memo')]),
      ...NOT_VISIBLE_TEXTS.map((comment): [object, string] => [{ comment }, notEmptyOrVisibleMessage('comment')]),
      [{ substatus: 'STOLEN' }, 'substatus: must be one of LOST, COMPROMISED, DAMAGED, END_USER_REQUEST, ISSUER_REQUEST, NOT_ACTIVE, SUSPICIOUS_ACTIVITY, INTERNAL_REVIEW, EXPIRED, UNDELIVERABLE, OTHER'],
      [{ type: 'PHYSICAL' }, 'type: is not a recognised field'],
    ])('refuses %j with 400 and leaves the card unchanged', async (body, message) => {
      const card = await createCard({ type: 'VIRTUAL', memo: 'keep' });
      expect(await apiFailure(context.program.client.cards.update(card.token, body as never))).toEqual({ status: 400, message });
      expect(await context.program.client.cards.retrieve(card.token)).toEqual(card);
    });

    it('takes a comment with spaces and letters beyond ASCII, and an empty one', async () => {
      const card = await createCard({ type: 'VIRTUAL' });
      const commented = await context.program.client.cards.update(card.token, { comment: VISIBLE_TEXT });
      expect(commented).toEqual({ ...card, comment: VISIBLE_TEXT });
      expect(await context.program.client.cards.update(card.token, { comment: '' })).toEqual({ ...card, comment: '' });
    });

    it('takes a memo with spaces and letters beyond ASCII, and clears it with an empty one', async () => {
      const card = await createCard({ type: 'VIRTUAL', memo: VISIBLE_TEXT });
      expect(card.memo).toBe(VISIBLE_TEXT);
      expect(await context.program.client.cards.update(card.token, { memo: '' })).toEqual({ ...card, memo: '' });
      expect((await context.program.client.cards.update(card.token, { memo: VISIBLE_TEXT })).memo).toBe(VISIBLE_TEXT);
    });

    it('answers 404 for an unknown card and 400 for a malformed token', async () => {
      expect((await apiFailure(context.program.client.cards.update(crypto.randomUUID(), { memo: 'x' }))).status).toBe(404);
      expect((await apiFailure(context.program.client.cards.retrieve(crypto.randomUUID()))).status).toBe(404);
      expect(await apiFailure(context.program.client.cards.retrieve('not-a-card'))).toEqual({ status: 400, message: 'card_token: must be a valid uuid' });
    });

    it('answers the card operations it does not serve as every route it does not serve: 404 "No route", not a 400 about a card token', async () => {
      const { client, apiKey } = context.program;
      const card = await createCard({ type: 'VIRTUAL' });
      const notServed = [
        () => client.cards.aggregateBalances.list(),
        () => client.cards.aggregateBalances.list({ account_token: card.account_token }),
        () => client.cards.balances.list(card.token),
        () => client.cards.financialTransactions.list(card.token),
        () => client.cards.financialTransactions.retrieve(card.token, crypto.randomUUID()),
        () => client.cards.reissue(card.token, {}),
        () => client.cards.renew(card.token, { shipping_address: SHIPPING }),
        () => client.cards.convertPhysical(card.token, { shipping_address: SHIPPING }),
        () => client.cards.provision(card.token, { digital_wallet: 'APPLE_PAY' }),
        () => client.cards.webProvision(card.token, { digital_wallet: 'APPLE_PAY' }),
        () => client.cards.searchByPan({ pan: card.pan as string }),
      ];
      for (const call of notServed) {
        const failure = await apiFailure(call());
        expect(failure.status, failure.message).toBe(404);
        expect(failure.message).toMatch(/^No route for (GET|POST) \/v1\/cards\//);
      }
      // The embedded card UI (cards.embed, and getEmbedHTML, which calls it) is not under /v1/cards.
      expect(await apiFailure(client.cards.embed({ embed_request: 'e30=', hmac: 'x' }))).toEqual({ status: 404, message: 'No route for GET /v1/embed/card' });
      // With or without a key, as any path no route serves.
      for (const key of [apiKey, undefined]) {
        const response = await context.server.request('GET', '/v1/cards/aggregate_balances', key === undefined ? {} : { apiKey: key });
        expect(response.status).toBe(404);
        expect(((await response.json()) as { message: string }).message).toBe('No route for GET /v1/cards/aggregate_balances');
      }
    });

    it('applies 50 concurrent updates one at a time: the card ends as one of them left it', async () => {
      const card = await createCard({ type: 'VIRTUAL' });
      const before = await cardRow(card.token);
      const requests = Array.from({ length: 50 }, (_, i) => ({ state: (i % 3 === 0 ? 'PAUSED' : 'OPEN') as 'PAUSED' | 'OPEN', memo: `update ${i}`, spend_limit: i }));
      const responses = await Promise.all(requests.map((body) => context.program.client.cards.update(card.token, body)));
      responses.forEach((response, i) => expect(response).toMatchObject(requests[i] as object));

      const final = await context.program.client.cards.retrieve(card.token);
      expect(responses).toContainEqual(final);
      const winner = requests.find((body) => body.memo === final.memo);
      expect(final).toMatchObject(winner as object);

      const after = await cardRow(card.token);
      expect(after.updated_ms).toBeGreaterThanOrEqual(before.updated_ms);
      expect(after.updated_ms).toBeLessThanOrEqual(Date.now());
      expect(after.state).toBe(final.state);
    });
  });

  describe('list', () => {
    let lister: TestProgram;
    let made: Card[];
    let holderAccount: string;

    beforeAll(async () => {
      lister = await context.server.newProgram('card lister');
      holderAccount = await acceptedAccountToken(lister.client);
      made = [];
      made.push(await createCard({ type: 'VIRTUAL', memo: 'Office Supplies' }, lister.client));
      made.push(await createCard({ type: 'VIRTUAL', memo: 'Travel 50%_off', account_token: holderAccount }, lister.client));
      made.push(await createCard({ type: 'SINGLE_USE', memo: 'office party', state: 'PAUSED' }, lister.client));
      made.push(await createCard({ type: 'PHYSICAL', shipping_address: SHIPPING }, lister.client));
    });

    async function tokens(query: Lithic.CardListParams): Promise<string[]> {
      return (await lister.client.cards.list(query)).data.map((card) => card.token);
    }

    it('lists newest first without PAN or CVV', async () => {
      const page = await lister.client.cards.list();
      expect(page.data.map((card) => card.token)).toEqual([...made].reverse().map((card) => card.token));
      for (const card of page.data) {
        expect(card).not.toHaveProperty('pan');
        expect(card).not.toHaveProperty('cvv');
        expect(card.last_four).toMatch(/^\d{4}$/);
      }
    });

    it('filters by account, state, memo (partial, case-insensitive) and creation time', async () => {
      const [office, travel, party, physical] = made.map((card) => card.token);
      expect(await tokens({ account_token: holderAccount })).toEqual([travel]);
      expect(await tokens({ account_token: crypto.randomUUID() })).toEqual([]);
      expect(await tokens({ state: 'PAUSED' })).toEqual([party]);
      expect(await tokens({ state: 'PENDING_FULFILLMENT' })).toEqual([physical]);
      expect(await tokens({ state: 'OPEN' })).toEqual([travel, office]);
      expect(await tokens({ memo: 'OFFICE' })).toEqual([party, office]);
      expect(await tokens({ memo: '50%_' })).toEqual([travel]);
      expect(await tokens({ memo: '%' })).toEqual([travel]);
      expect(await tokens({ begin: made[1]?.created, end: made[3]?.created })).toEqual(made[2]?.created === made[1]?.created ? [] : [party]);
    });

    it('matches a memo with letters beyond ASCII whatever their case, as written or not', async () => {
      const program = await context.server.newProgram('accented memos');
      const cafe = await createCard({ type: 'VIRTUAL', memo: 'CAFÉ Ünterwegs' }, program.client);
      await createCard({ type: 'VIRTUAL', memo: 'Cafe' }, program.client);
      for (const memo of ['CAFÉ', 'café', 'ünterwegs', 'É ü']) {
        expect((await program.client.cards.list({ memo })).data.map((card) => card.token), memo).toEqual([cafe.token]);
      }
    });

    it('pages forwards and backwards', async () => {
      const all = [...made].reverse().map((card) => card.token);
      const forwards: string[] = [];
      for await (const card of lister.client.cards.list({ page_size: 1 })) forwards.push(card.token);
      expect(forwards).toEqual(all);
      const before = await lister.client.cards.list({ ending_before: all[2], page_size: 1 });
      expect(before.data.map((card) => card.token)).toEqual([all[1]]);
      expect(before.has_more).toBe(true);
    });

    it('refuses bad list parameters with 400', async () => {
      for (const query of ['state=LOST', 'page_size=0', 'account_token=nope', 'begin=soon', 'pan=1']) {
        const response = await context.server.request('GET', `/v1/cards?${query}`, { apiKey: lister.apiKey });
        expect(response.status, query).toBe(400);
      }
    });
  });

  describe('spend limits (SDK retrieveSpendLimits)', () => {
    const spend = (card: Card, amount: number, client = context.program.client) =>
      client.transactions.simulateAuthorization({ amount, descriptor: 'SHOP', pan: card.pan as string }).then(async ({ token }) => client.transactions.retrieve(token as string));

    it('answers the limit under its duration, the approved spend in its window and what is left, as the authorizations are checked', async () => {
      const { client } = context.program;
      const card = await createCard({ type: 'VIRTUAL', spend_limit: 10_000, spend_limit_duration: 'MONTHLY' });
      expect(await client.cards.retrieveSpendLimits(card.token)).toEqual({ available_spend_limit: { monthly: 10_000 }, spend_limit: { monthly: 10_000 }, spend_velocity: { monthly: 0 } });

      expect((await spend(card, 3_000)).result).toBe('APPROVED');
      const voided = await spend(card, 1_000);
      await client.transactions.simulateVoid({ token: voided.token });
      const cleared = await spend(card, 4_000);
      await client.transactions.simulateClearing({ token: cleared.token, amount: 2_500 });
      expect((await spend(card, 5_000)).result).toBe('USER_TRANSACTION_LIMIT');
      expect(await client.cards.retrieveSpendLimits(card.token)).toEqual({ available_spend_limit: { monthly: 4_500 }, spend_limit: { monthly: 10_000 }, spend_velocity: { monthly: 5_500 } });
      // What is left is what the next authorization may take.
      expect((await spend(card, 4_501)).result).toBe('USER_TRANSACTION_LIMIT');
      expect((await spend(card, 4_500)).result).toBe('APPROVED');

      await client.cards.update(card.token, { spend_limit: 8_000, spend_limit_duration: 'FOREVER' });
      expect(await client.cards.retrieveSpendLimits(card.token)).toEqual({ available_spend_limit: { forever: 0 }, spend_limit: { forever: 8_000 }, spend_velocity: { forever: 10_000 } });
      await client.cards.update(card.token, { spend_limit: 50_000, spend_limit_duration: 'ANNUALLY' });
      expect(await client.cards.retrieveSpendLimits(card.token)).toEqual({ available_spend_limit: { annually: 40_000 }, spend_limit: { annually: 50_000 }, spend_velocity: { annually: 10_000 } });
    });

    it('shows nothing for a card without a limit or with a TRANSACTION limit (no window), and counts only its own spend', async () => {
      const { client } = context.program;
      const none = { available_spend_limit: {}, spend_limit: {}, spend_velocity: {} };
      const unlimited = await createCard({ type: 'VIRTUAL' });
      await spend(unlimited, 2_000);
      expect(await client.cards.retrieveSpendLimits(unlimited.token)).toEqual(none);
      const perTransaction = await createCard({ type: 'VIRTUAL', spend_limit: 1_000, spend_limit_duration: 'TRANSACTION' });
      expect(await client.cards.retrieveSpendLimits(perTransaction.token)).toEqual(none);
      const other = await createCard({ type: 'SINGLE_USE', spend_limit: 1_000, spend_limit_duration: 'FOREVER' });
      expect(await client.cards.retrieveSpendLimits(other.token)).toEqual({ available_spend_limit: { forever: 1_000 }, spend_limit: { forever: 1_000 }, spend_velocity: { forever: 0 } });
    });

    it('answers 404 for an unknown card or another program’s, 400 for a malformed token', async () => {
      const other = await context.server.newProgram('spend limits other');
      const card = await createCard({ type: 'VIRTUAL', spend_limit: 1_000, spend_limit_duration: 'MONTHLY' });
      expect((await apiFailure(context.program.client.cards.retrieveSpendLimits(crypto.randomUUID()))).status).toBe(404);
      expect((await apiFailure(other.client.cards.retrieveSpendLimits(card.token))).status).toBe(404);
      expect(await apiFailure(context.program.client.cards.retrieveSpendLimits('nope'))).toEqual({ status: 400, message: 'card_token: must be a valid uuid' });
    });
  });

  describe('the authorization engine seam', () => {
    it('closes a SINGLE_USE card after its first approval; its reuse is SINGLE_USE_RECHARGED', async () => {
      const card = await createCard({ type: 'SINGLE_USE' });
      const { db } = context.server.server;
      await db.transaction(async (tx) => {
        const locked = (await store.lockCard(db, tx, context.program.programId, card.token)) as store.CardRow;
        expect(cardUsability(locked, Date.now())).toEqual({ approved: true });
        await recordApprovedAuthorization(tx, context.program.programId, locked, { acceptor_id: 'M1', descriptor: 'Coffee' }, Date.now());
      });
      expect((await context.program.client.cards.retrieve(card.token)).state).toBe('CLOSED');
      expect(cardUsability(await cardRow(card.token), Date.now())).toEqual({
        approved: false,
        result: 'SINGLE_USE_RECHARGED',
        detailed_results: ['SINGLE_USE_CARD_REATTEMPTED'],
      });
    });

    it('locks a MERCHANT_LOCKED card to its first merchant', async () => {
      const card = await createCard({ type: 'MERCHANT_LOCKED' });
      const { db } = context.server.server;
      for (const merchant of [
        { acceptor_id: 'SHOP-1', descriptor: 'shop.example.com' },
        { acceptor_id: 'SHOP-2', descriptor: 'other.example.com' },
      ]) {
        await db.transaction(async (tx) => {
          const locked = (await store.lockCard(db, tx, context.program.programId, card.token)) as store.CardRow;
          await recordApprovedAuthorization(tx, context.program.programId, locked, merchant, Date.now());
        });
      }
      const retrieved = await context.program.client.cards.retrieve(card.token);
      expect(retrieved).toMatchObject({ state: 'OPEN', hostname: 'shop.example.com' });
      const row = await cardRow(card.token);
      expect(cardUsability(row, Date.now(), { merchant_acceptor_id: 'SHOP-1' })).toEqual({ approved: true });
      expect(cardUsability(row, Date.now(), { merchant_acceptor_id: 'SHOP-2' })).toMatchObject({ result: 'UNAUTHORIZED_MERCHANT' });
    });

    it('declines a PAUSED card and then a CLOSED one', async () => {
      const card = await createCard({ type: 'VIRTUAL' });
      await context.program.client.cards.update(card.token, { state: 'PAUSED' });
      expect(cardUsability(await cardRow(card.token), Date.now())).toMatchObject({ result: 'CARD_PAUSED', detailed_results: ['CARD_PAUSED'] });
      await context.program.client.cards.update(card.token, { state: 'CLOSED' });
      expect(cardUsability(await cardRow(card.token), Date.now())).toMatchObject({ result: 'CARD_CLOSED', detailed_results: ['CARD_CLOSED'] });
    });
  });

  it('keeps programs apart', async () => {
    const other = await context.server.newProgram('other');
    const accountToken = await acceptedAccountToken(context.program.client);
    const card = await createCard({ type: 'VIRTUAL', account_token: accountToken });
    expect((await apiFailure(other.client.cards.retrieve(card.token))).status).toBe(404);
    expect((await apiFailure(other.client.cards.update(card.token, { state: 'CLOSED' }))).status).toBe(404);
    expect((await apiFailure(other.client.cards.create({ type: 'VIRTUAL', account_token: accountToken }))).status).toBe(404);
    expect((await apiFailure(other.client.cards.create({ type: 'VIRTUAL', replacement_for: card.token }))).status).toBe(404);
    expect((await apiFailure(other.client.cards.create({ type: 'VIRTUAL', card_program_token: card.card_program_token }))).status).toBe(404);
    expect((await other.client.cards.list()).data.map((item) => item.token)).not.toContain(card.token);
    expect((await other.client.cards.list({ account_token: accountToken })).data).toEqual([]);
    expect((await context.program.client.cards.retrieve(card.token)).state).toBe('OPEN');
  });

  it('stores nothing in clear from which a PAN can be worked out', async () => {
    const program = await context.server.newProgram('numbering');
    const cards = [];
    for (let i = 0; i < 3; i++) cards.push(await createCard({ type: 'VIRTUAL' }, program.client));
    const { kysely } = context.server.server.db;
    const cardProgram = await kysely.selectFrom('card_programs').selectAll().where('program_id', '=', program.programId).executeTakeFirstOrThrow();
    // The card program row and the cards' order of creation, numbered as a reader of the source would
    // (before numbers were keyed: BIN + (sequence × 740123459 + pan_offset) mod 10^9 + Luhn digit).
    const offsets = [Number(cardProgram.pan_offset), Number(crypto.createHash('sha256').update(`card program:${program.programId}`).digest().readBigUInt64BE(4) % 10n ** 9n)];
    for (const [sequence, card] of cards.entries()) {
      for (const offset of offsets) {
        const payload = `${cardProgram.bin}${String((BigInt(sequence) * 740_123_459n + BigInt(offset)) % 10n ** 9n).padStart(9, '0')}`;
        expect(`${payload}${luhnCheckDigit(payload)}`).not.toBe(card.pan);
      }
    }
  });

  it('skips a number a card of its card program already holds', async () => {
    const program = await context.server.newProgram('numbered before');
    const first = await createCard({ type: 'VIRTUAL' }, program.client);
    // As a card numbered before numbers were keyed may: a card holding the number the next sequence gives.
    const { kysely } = context.server.server.db;
    const { secrets } = context.server.server.app.deps;
    const cardProgram = await kysely.selectFrom('card_programs').selectAll().where('program_id', '=', program.programId).executeTakeFirstOrThrow();
    const taken = panForSequence(numberingKey(secrets, program.programId), cardProgram.bin, Number(cardProgram.next_pan_sequence));
    const row = await cardRow(first.token, program.programId);
    await kysely.insertInto('cards').values({ ...row, token: crypto.randomUUID(), pan_encrypted: secrets.encrypt(taken), pan_lookup_hash: secrets.lookupHash(taken), last_four: taken.slice(-4) }).execute();
    const second = await createCard({ type: 'VIRTUAL' }, program.client);
    expect([first.pan, taken]).not.toContain(second.pan);
    expect(isLuhnValid(second.pan as string)).toBe(true);
  });

  it('never writes a PAN or CVV to the logs', async () => {
    const card = await createCard({ type: 'VIRTUAL' });
    await context.program.client.cards.retrieve(card.token);
    await context.program.client.cards.update(card.token, { memo: 'logged?' });
    const byPan = await context.server.request('GET', `/v1/cards/${card.pan}`, { apiKey: context.program.apiKey });
    expect(byPan.status).toBe(400);
    await context.server.request('GET', `/v1/cards?memo=${card.pan}`, { apiKey: context.program.apiKey });
    await context.server.request('POST', '/v1/cards', { apiKey: context.program.apiKey, body: { type: 'VIRTUAL', memo: card.pan, pin: 'x' } });

    const logs = context.server.logs();
    expect(logs.length).toBeGreaterThan(0);
    expect(secretsSeen.length).toBeGreaterThan(50);
    for (const { pan, cvv } of secretsSeen) {
      expect(logs).not.toContain(pan);
      expect(logs).not.toMatch(new RegExp(`"cvv"\\s*:\\s*"${cvv}"`));
    }
    expect(logs).not.toMatch(/"(pan|cvv)"\s*:\s*"\d/);
    expect(logs).toContain(`${'*'.repeat(12)}${card.pan?.slice(-4)}`);
  });
});

describeWithDb('PHYSICAL card fulfilment as time passes', () => {
  const clock = frozenWallClock('2031-03-10T12:00:00.000Z');
  const context = useTestServer({ wall: clock.wall });

  it('shows a card fulfilled from the midnight after its creation, before any sweep has run the batch', async () => {
    const { client } = context.program;
    const card = await client.cards.create({ type: 'PHYSICAL', shipping_address: SHIPPING });
    expect((await client.cards.retrieve(card.token)).state).toBe('PENDING_FULFILLMENT');
    clock.advance(11 * 60 * 60 * 1000); // 23:00 the same day: not yet
    expect((await client.cards.retrieve(card.token)).state).toBe('PENDING_FULFILLMENT');
    clock.advance(2 * 60 * 60 * 1000); // 01:00 the next day; no job has run
    expect((await client.cards.retrieve(card.token)).state).toBe('PENDING_ACTIVATION');
    const later = await client.cards.create({ type: 'PHYSICAL', shipping_address: SHIPPING });
    const listed = await client.cards.list({ state: 'PENDING_FULFILLMENT' });
    expect(listed.data.map((item) => item.token)).toEqual([later.token]);
    clock.advance(24 * 60 * 60 * 1000);
    expect((await client.cards.list({ state: 'PENDING_ACTIVATION' })).data.map((item) => item.token).sort()).toEqual([card.token, later.token].sort());
  });

  it('ships a card whose midnight has passed before a PATCH changes it, with no read or sweep in between', async () => {
    const { client } = (await context.server.newProgram('patch after midnight')) as { client: typeof context.program.client };
    const card = await client.cards.create({ type: 'PHYSICAL', shipping_address: SHIPPING });
    clock.advance(24 * 60 * 60 * 1000); // past the next midnight; nothing has read the card since
    expect((await client.cards.update(card.token, { state: 'OPEN' })).state).toBe('OPEN');
    const shipped = (await client.events.list({ event_types: ['card.shipped'], with_content: true })).data;
    const nextMidnight = new Date(Date.parse(card.created.slice(0, 10)) + 24 * 60 * 60 * 1000).toISOString();
    expect(shipped.map((event) => [event.payload['card_token'], event.created])).toEqual([[card.token, nextMidnight]]);
  });

  it('ships a card the client opened or paused before the batch, keeping its state, once; not one closed before it', async () => {
    const { client } = (await context.server.newProgram('opened before shipping')) as { client: typeof context.program.client };
    const physical = { type: 'PHYSICAL', shipping_address: SHIPPING } as const;
    const opened = await client.cards.create(physical);
    await client.cards.update(opened.token, { state: 'OPEN' });
    const paused = await client.cards.create({ ...physical, state: 'PAUSED' });
    const closed = await client.cards.create(physical);
    await client.cards.update(closed.token, { state: 'CLOSED' });
    const waiting = await client.cards.create(physical);
    const before = await Promise.all([opened, paused, closed, waiting].map((card) => client.cards.retrieve(card.token)));
    clock.advance(24 * 60 * 60 * 1000);
    const after = await Promise.all([opened, paused, closed, waiting].map((card) => client.cards.retrieve(card.token)));
    expect(after.map((card) => card.state)).toEqual(['OPEN', 'PAUSED', 'CLOSED', 'PENDING_ACTIVATION']);
    // A card that keeps its state is not changed by being sent.
    expect(after.slice(0, 3)).toEqual(before.slice(0, 3));
    clock.advance(24 * 60 * 60 * 1000);
    await client.cards.list();
    const shipped = (await client.events.list({ event_types: ['card.shipped'], with_content: true })).data;
    const nextMidnight = new Date(Date.parse(opened.created.slice(0, 10)) + 24 * 60 * 60 * 1000).toISOString();
    expect(shipped.map((event) => [event.payload['card_token'], event.created]).sort()).toEqual(
      [opened.token, paused.token, waiting.token].map((token) => [token, nextMidnight]).sort(),
    );
  });
});

describeWithDb('card spend limits as time passes', () => {
  const clock = frozenWallClock('2031-03-10T12:00:00.000Z');
  const context = useTestServer({ wall: clock.wall });

  it('reads a card’s spend limit window on the program clock, and gives back the spend of a hold that expired before any sweep released it', async () => {
    const { client } = context.program;
    const monthly = await client.cards.create({ type: 'VIRTUAL', spend_limit: 10_000, spend_limit_duration: 'MONTHLY' });
    const forever = await client.cards.create({ type: 'VIRTUAL', spend_limit: 10_000, spend_limit_duration: 'FOREVER' });
    const cleared = await client.transactions.simulateAuthorization({ amount: 3_000, descriptor: 'SHOP', pan: monthly.pan as string });
    await client.transactions.simulateClearing({ token: cleared.token as string });
    await client.transactions.simulateAuthorization({ amount: 4_000, descriptor: 'SHOP', pan: forever.pan as string });
    expect((await client.cards.retrieveSpendLimits(forever.token)).available_spend_limit).toEqual({ forever: 6_000 });
    clock.advance(8 * 24 * 60 * 60 * 1000); // the wall clock passes the hold's expiry; no job has run
    expect((await client.cards.retrieveSpendLimits(forever.token)).spend_velocity).toEqual({ forever: 0 });
    expect((await client.cards.retrieveSpendLimits(monthly.token)).spend_velocity).toEqual({ monthly: 3_000 });
    clock.advance(31 * 24 * 60 * 60 * 1000); // the cleared purchase leaves the monthly window
    expect((await client.cards.retrieveSpendLimits(monthly.token)).available_spend_limit).toEqual({ monthly: 10_000 });
  });
});
