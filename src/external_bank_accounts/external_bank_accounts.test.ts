import crypto from 'node:crypto';
import Lithic from 'lithic';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { MS_PER_DAY } from '../clock.js';
import { verifyProgramLedger } from '../ledger/ledger.js';
import { movableWallClock } from '../testing/clock.js';
import { acceptedAccountToken } from '../testing/enrollment.js';
import { changedLastAt, describeWithDb, engine, type TestProgram, useTestServer } from '../testing/harness.js';
import { balanceOf, expectError, fund, manualBankAccount, newAccount } from '../testing/money.js';
import { isValidRoutingNumber } from './routing.js';
import { PRENOTE_WAIT_MS } from './service.js';
import * as store from './store.js';
import * as accountStore from '../accounts/store.js';
import { NOT_VISIBLE_TEXTS, notEmptyOrVisibleMessage, notVisibleMessage, VISIBLE_TEXT } from '../testing/visible-text.js';

type Eba = Lithic.ExternalBankAccountCreateResponse;
type CreateBody = Record<string, unknown>;

const { wall, advance } = movableWallClock('2031-06-01T12:00:00.000Z');
/** What a funding account holds: enough for micro-deposits (two of at most 99 cents each). */
const FUNDED_CENTS = 1_000;

describeWithDb('external bank accounts', () => {
  const context = useTestServer({ wall });
  let operating: string;

  beforeAll(async () => {
    operating = await newAccount(context.program.client, 'funding');
    await fund(context.program.client, operating, FUNDED_CENTS);
  });

  function body(extra: CreateBody = {}): CreateBody {
    return { ...manualBankAccount(operating), ...extra };
  }
  const create = (extra: CreateBody = {}, on: Lithic = context.program.client) => on.externalBankAccounts.create(body(extra) as never) as Promise<Eba>;

  /** Expects the create call to be a 400 whose message contains `message`, and to have created nothing. */
  async function expectRefused(call: () => Promise<unknown>, message: string): Promise<void> {
    await expectRefusedWith(400, call, message);
  }

  async function expectRefusedWith(status: number, call: () => Promise<unknown>, message: string): Promise<void> {
    const count = async () => (await context.program.client.externalBankAccounts.list({ page_size: 100 })).data.length;
    const before = await count();
    expect(await expectError(call(), status)).toContain(message);
    expect(await count()).toBe(before);
  }

  it('creates a MANUAL account: ENABLED, last four only, every field echoed', async () => {
    const { client } = context.program;
    const address = { address1: '1 Main St', city: 'Springfield', country: 'USA', postal_code: '12345', state: 'IL' };
    const created = await create({ account_number: '12345678901234567', name: 'Payroll', address, company_id: 'C1', dob: '1990-01-02', doing_business_as: 'Ada Co', user_defined_id: 'u1' });
    expect(created).toMatchObject({
      country: 'USA',
      currency: 'USD',
      last_four: '4567',
      owner: 'Ada Lovelace',
      owner_type: 'INDIVIDUAL',
      routing_number: '021000021',
      state: 'ENABLED',
      type: 'CHECKING',
      verification_attempts: 0,
      verification_method: 'MANUAL',
      verification_state: 'ENABLED',
      account_token: null,
      financial_account_token: operating,
      name: 'Payroll',
      address,
      company_id: 'C1',
      dob: '1990-01-02',
      doing_business_as: 'Ada Co',
      user_defined_id: 'u1',
    });
    expect(JSON.stringify(created)).not.toContain('12345678901234567');
    expect(await client.externalBankAccounts.retrieve(created.token)).toEqual(created);
    const stored = await context.server.server.db.kysely.selectFrom('external_bank_accounts').selectAll().where('token', '=', created.token).executeTakeFirstOrThrow();
    expect(stored.account_number_encrypted).not.toContain('1234567890');
  });

  it.each(['EXTERNALLY_VERIFIED', 'UNVERIFIED'])('creates a %s account without a funding account: ENABLED', async (method) => {
    const created = await create({ verification_method: method, financial_account_token: undefined });
    expect(created).toMatchObject({ verification_method: method, verification_state: 'ENABLED' });
    expect(created).not.toHaveProperty('financial_account_token');
  });

  it.each([
    [{ routing_number: '021000022' }, 'routing_number: is not a valid ABA routing number'],
    [{ routing_number: '000000000' }, 'routing_number: is not a valid ABA routing number'],
    [{ routing_number: '02100002' }, 'routing_number: must match pattern'],
    [{ account_number: '12a4' }, 'account_number: must match pattern'],
    [{ account_number: '123' }, 'account_number: must match pattern'],
    [{ country: 'CAN' }, 'country: must be one of USA'],
    [{ currency: 'EUR' }, 'currency: must be one of USD'],
    [{ owner_type: 'TRUST' }, 'owner_type: must be one of'],
    [{ type: 'BROKERAGE' }, 'type: must be one of'],
    [{ verification_method: 'DIRECT' }, 'verification_method: must be one of'],
    [{ verification_method: undefined }, 'verification_method: is required'],
    [{ account_number: undefined }, 'account_number: is required'],
    [{ routing_number: undefined, verification_method: 'UNVERIFIED' }, 'routing_number: is required'],
    [{ verification_method: 'PLAID' }, 'processor_token: is required'],
    [{ verification_enforcement: 'yes' }, 'verification_enforcement: must be boolean'],
    [{ verification_method: 'MICRO_DEPOSIT', financial_account_token: undefined }, 'financial_account_token: is required for verification_method MICRO_DEPOSIT'],
    [{ owner: '' }, 'owner: must NOT have fewer than 1 characters'],
    [{ dob: '1990-13-01' }, 'dob: must be a valid date'],
    [{ address: { address1: 'x', city: 'y' } }, 'address.country: is required'],
    [{ processor_token: 'p' }, 'processor_token: is not a recognised field'],
  ])('refuses %j with 400 naming the field, and creates nothing', async (override, message) => {
    await expectRefused(() => create(override), message);
  });

  describe('addresses are validated as account holders validate theirs', () => {
    const address = { address1: '1 Main St', city: 'Springfield', country: 'USA', postal_code: '12345', state: 'IL' };
    const badAddresses: [Record<string, string>, string][] = [
      [{ state: 'ny' }, 'address.state: must be an uppercase two-letter US state code'],
      [{ state: 'XX' }, 'address.state: must be an uppercase two-letter US state code'],
      [{ postal_code: 'abc' }, 'address.postal_code: must be a five-digit ZIP'],
      [{ country: 'US' }, 'address.country: must be "USA"'],
      [{ address1: 'PO Box 12' }, 'address.address1: PO boxes are not accepted'],
      ...NOT_VISIBLE_TEXTS.flatMap((value): [Record<string, string>, string][] => [
        [{ address1: value }, notVisibleMessage('address.address1')],
        [{ city: value }, notVisibleMessage('address.city')],
        [{ address2: value }, notEmptyOrVisibleMessage('address.address2')],
      ]),
    ];

    it.each(badAddresses)('refuses %j on create and on update with 400 naming the field, and changes nothing', async (override, message) => {
      const { client } = context.program;
      await expectRefused(() => create({ address: { ...address, ...override } }), message);
      const created = await create({ address });
      expect(await expectError(client.externalBankAccounts.update(created.token, { name: 'x', address: { ...address, ...override } }), 400)).toContain(message);
      expect(await client.externalBankAccounts.retrieve(created.token)).toEqual(created);
    });

    it('accepts a ZIP+4 and a territory on create and update', async () => {
      const { client } = context.program;
      const created = await create({ address: { ...address, postal_code: '12345-6789' } });
      expect(created.address).toEqual({ ...address, postal_code: '12345-6789' });
      const updated = await client.externalBankAccounts.update(created.token, { address: { ...address, state: 'PR', postal_code: '00901' } });
      expect(updated.address).toEqual({ ...address, state: 'PR', postal_code: '00901' });
    });
  });

  it('accepts verification_enforcement (a boolean, with nothing to enforce: not echoed)', async () => {
    for (const verification_enforcement of [true, false]) {
      const created = await create({ verification_enforcement, verification_method: 'MICRO_DEPOSIT' });
      expect(created).toMatchObject({ verification_method: 'MICRO_DEPOSIT', verification_state: 'PENDING' });
      expect(created).not.toHaveProperty('verification_enforcement');
    }
  });

  describe('Plaid', () => {
    const plaid = (extra: CreateBody = {}) =>
      context.program.client.externalBankAccounts.create({
        owner: 'Ada Lovelace',
        owner_type: 'INDIVIDUAL',
        processor_token: 'processor-sandbox-0asd1-a92nc',
        verification_method: 'PLAID',
        ...extra,
      } as Lithic.ExternalBankAccountCreateParams) as Promise<Eba>;

    it('creates an ENABLED account whose numbers come from the processor token, which is not kept', async () => {
      const { client } = context.program;
      const { kysely } = context.server.server.db;
      const accountToken = (await kysely.selectFrom('accounts').select('token').where('program_id', '=', context.program.programId).executeTakeFirstOrThrow()).token;
      const optional = { account_token: accountToken, company_id: 'C1', dob: '1990-01-02', doing_business_as: 'Ada Co', user_defined_id: 'u1' };
      const created = await plaid(optional);
      expect(created).toMatchObject({
        ...optional,
        country: 'USA',
        currency: 'USD',
        owner: 'Ada Lovelace',
        owner_type: 'INDIVIDUAL',
        state: 'ENABLED',
        type: 'CHECKING',
        verification_attempts: 0,
        verification_method: 'PLAID',
        verification_state: 'ENABLED',
      });
      expect(created).not.toHaveProperty('financial_account_token');
      expect(created.routing_number).toMatch(/^0[1-9][0-9]{7}$/);
      expect(isValidRoutingNumber(created.routing_number)).toBe(true);
      expect(created.last_four).toMatch(/^[0-9]{4}$/);
      expect(await client.externalBankAccounts.retrieve(created.token)).toEqual(created);
      const stored = await kysely.selectFrom('external_bank_accounts').selectAll().where('token', '=', created.token).executeTakeFirstOrThrow();
      expect(JSON.stringify(stored)).not.toContain('processor-sandbox');

      const again = await plaid();
      expect(again.token).not.toBe(created.token);
      expect([again.routing_number, again.last_four]).toEqual([created.routing_number, created.last_four]);
      const other = await plaid({ processor_token: 'processor-sandbox-other' });
      expect([other.routing_number, other.last_four]).not.toEqual([created.routing_number, created.last_four]);

      expect(await expectError(client.externalBankAccounts.microDeposits.create(created.token, { micro_deposits: [1, 2] }), 422)).toContain('PLAID');
      expect(await expectError(client.externalBankAccounts.retryMicroDeposits(created.token), 422)).toContain('PLAID');
      expect((await client.externalBankAccounts.update(created.token, { type: 'SAVINGS' })).type).toBe('SAVINGS');
    });

    it.each([
      [{ processor_token: undefined }, 'processor_token: is required'],
      [{ verification_method: undefined }, 'verification_method: is required'],
      [{ processor_token: '' }, 'processor_token: must NOT have fewer than 1 characters'],
      [{ owner: undefined }, 'owner: is required'],
      [{ account_number: '12345678' }, 'account_number: is not a recognised field'],
      [{ name: 'Payroll' }, 'name: is not a recognised field'],
      [{ financial_account_token: crypto.randomUUID() }, 'financial_account_token: is not a recognised field'],
      [{ verification_enforcement: true }, 'verification_enforcement: is not a recognised field'],
      [{ dob: '1990-02-30' }, 'dob: must be a valid date'],
    ])('refuses %j with 400 naming the field, and creates nothing', async (override, message) => {
      await expectRefused(() => plaid(override), message);
    });

    it('refuses an unknown account_token (404)', async () => {
      expect(await expectError(plaid({ account_token: crypto.randomUUID() }), 404)).toContain('account_token');
    });
  });

  it('refuses a funding account that is not OPERATING (400) or unknown (404), and an unknown account_token (404)', async () => {
    const { client } = context.program;
    const issuing = (await client.financialAccounts.list({ type: 'ISSUING' })).data[0]?.token as string;
    expect(await expectError(create({ financial_account_token: issuing }), 400)).toContain('OPERATING');
    expect(await expectError(create({ financial_account_token: crypto.randomUUID() }), 404)).toContain('financial_account_token');
    expect(await expectError(create({ account_token: crypto.randomUUID() }), 404)).toContain('account_token');
  });

  it('refuses (422) a bank account for a CLOSED account, and creates nothing', async () => {
    const { client } = context.program;
    const closed = await acceptedAccountToken(client);
    await client.accounts.update(closed, { state: 'CLOSED' });
    await expectRefusedWith(422, () => create({ account_token: closed }), `account_token: account '${closed}' is CLOSED, which is final; no external bank account can be opened for it`);
  });

  describe('a bank account of a CLOSED account', () => {
    it('takes no micro-deposit amounts and retries neither verification (422: nothing is sent, nothing enabled), changing nothing; its descriptive fields still update', async () => {
      const { client } = context.program;
      const accountToken = await acceptedAccountToken(client);
      const micro = await create({ account_token: accountToken, verification_method: 'MICRO_DEPOSIT' });
      const prenote = await create({ account_token: accountToken, verification_method: 'PRENOTE' });
      await client.accounts.update(accountToken, { state: 'CLOSED' });
      const eventsBefore = (await client.financialAccounts.financialTransactions.retrieve(operating, micro.token)).events.length;
      const refused = `account_token: account '${accountToken}' is CLOSED, which is final`;
      expect(await expectError(client.externalBankAccounts.microDeposits.create(micro.token, { micro_deposits: [1, 2] }), 422)).toContain(refused);
      expect(await expectError(client.externalBankAccounts.retryMicroDeposits(micro.token, {}), 422)).toContain(refused);
      expect(await expectError(client.externalBankAccounts.retryPrenote(prenote.token, {}), 422)).toContain(refused);
      expect(await client.externalBankAccounts.retrieve(micro.token)).toEqual(micro);
      expect(await client.externalBankAccounts.retrieve(prenote.token)).toEqual(prenote);
      expect((await client.financialAccounts.financialTransactions.retrieve(operating, micro.token)).events).toHaveLength(eventsBefore);
      // A name or an address moves no money and opens nothing: the record stays correctable.
      expect(await client.externalBankAccounts.update(micro.token, { name: 'Old payroll' })).toMatchObject({ name: 'Old payroll', verification_state: 'PENDING' });
    });
  });

  describe('the funding account belongs to the program or to the bank account’s own account', () => {
    it('refuses (400) an OPERATING account of another account, on create and on retry, moving nothing; takes the program’s and the account’s own', async () => {
      const { client } = context.program;
      const [mine, theirs] = [await acceptedAccountToken(client), await acceptedAccountToken(client)];
      const ownOperating = (await client.financialAccounts.create({ nickname: 'mine', type: 'OPERATING', account_token: mine })).token;
      const theirOperating = (await client.financialAccounts.create({ nickname: 'theirs', type: 'OPERATING', account_token: theirs })).token;
      for (const funding of [ownOperating, theirOperating]) await fund(client, funding, FUNDED_CENTS);
      const refusal = (owner: string) =>
        `financial_account_token: financial account '${theirOperating}' belongs to account '${theirs}'; only the program's OPERATING accounts or those of ${owner} fund its verification`;
      await expectRefused(() => create({ account_token: mine, verification_method: 'MICRO_DEPOSIT', financial_account_token: theirOperating }), refusal(`account '${mine}'`));
      await expectRefused(() => create({ verification_method: 'MICRO_DEPOSIT', financial_account_token: theirOperating }), refusal('the program'));
      expect((await client.financialAccounts.financialTransactions.list(theirOperating)).data.map((item) => item.category)).not.toContain('ACH');

      const own = await create({ account_token: mine, verification_method: 'MICRO_DEPOSIT', financial_account_token: ownOperating });
      expect(own).toMatchObject({ verification_state: 'PENDING', financial_account_token: ownOperating });
      const programFunded = await create({ account_token: mine, verification_method: 'PRENOTE', financial_account_token: operating });
      expect(programFunded).toMatchObject({ verification_state: 'PENDING', financial_account_token: operating });
      expect(await expectError(client.externalBankAccounts.retryMicroDeposits(own.token, { financial_account_token: theirOperating }), 400)).toContain(refusal(`account '${mine}'`));
      expect(await client.externalBankAccounts.retrieve(own.token)).toEqual(own);
      expect((await client.financialAccounts.financialTransactions.list(theirOperating)).data.map((item) => item.category)).not.toContain('ACH');
    });
  });

  describe('micro-deposits', () => {
    /** As the README tells a user: the funding account's financial transaction with the bank account's token, its last two MICRO_DEPOSIT events. */
    async function amountsOf(eba: Eba, funding = operating): Promise<number[]> {
      const { data } = await context.program.client.financialAccounts.financialTransactions.list(funding);
      const transaction = data.find((item) => item.token === eba.token);
      expect(transaction).toMatchObject({ category: 'ACH', status: 'RETURNED', settled_amount: 0, pending_amount: 0 });
      // The two deposits left the funding account (negative); their sum came back (positive).
      const deposits = (transaction?.events ?? []).filter((event) => (event.type as string) === 'MICRO_DEPOSIT').slice(-2);
      expect(deposits).toHaveLength(2);
      return deposits.map((event) => -(event.amount ?? 0));
    }
    const sorted = (amounts: number[]) => [...amounts].sort((a, b) => a - b);
    /** Amounts that are not the ones sent: the first one off by one. */
    const wrongAmounts = ([first, second]: number[]) => [first === 99 ? 98 : (first as number) + 1, second as number];

    it('sends two deposits the user can read, net zero for the funding account, and verifies with them', async () => {
      const { client } = context.program;
      const created = await create({ verification_method: 'MICRO_DEPOSIT' });
      expect(created).toMatchObject({ verification_state: 'PENDING', verification_attempts: 0 });
      const amounts = await amountsOf(created);
      expect(amounts.every((amount) => amount >= 1 && amount <= 99)).toBe(true);
      expect(await balanceOf(client, operating)).toEqual({ available: FUNDED_CENTS, pending: 0, total: FUNDED_CENTS });
      const verified = await client.externalBankAccounts.microDeposits.create(created.token, { micro_deposits: [...amounts].reverse() });
      expect(verified).toMatchObject({ verification_state: 'ENABLED', verification_attempts: 1 });
      expect(await expectError(client.externalBankAccounts.microDeposits.create(created.token, { micro_deposits: amounts }), 422)).toContain('ENABLED');
      expect(await expectError(client.externalBankAccounts.retryMicroDeposits(created.token, {}), 422)).toContain('ENABLED');
      expect(await verifyProgramLedger(context.server.server.db.kysely, context.program.programId)).toEqual({ discrepancies: [], entries_sum_cents: 0 });
    });

    it('sends nothing from a funding account that cannot pay the deposits: INSUFFICIENT_FUNDS, no balance ever below zero; a retry once funded sends them', async () => {
      const { client } = context.program;
      const empty = await newAccount(client, 'empty funding');
      const created = await create({ verification_method: 'MICRO_DEPOSIT', financial_account_token: empty });
      expect(created).toMatchObject({ verification_state: 'INSUFFICIENT_FUNDS', verification_attempts: 0, financial_account_token: empty });
      expect(created.verification_failed_reason).toBe(`financial account '${empty}' has 0 cents available, too little to send the micro-deposits; fund it and retry`);
      expect(await client.externalBankAccounts.retrieve(created.token)).toEqual(created);
      // Nothing moved: no financial transaction, no entries, the balance stays 0.
      expect((await client.financialAccounts.financialTransactions.list(empty)).data).toEqual([]);
      expect(await balanceOf(client, empty)).toEqual({ available: 0, pending: 0, total: 0 });
      expect(await expectError(client.externalBankAccounts.microDeposits.create(created.token, { micro_deposits: [1, 2] }), 422)).toContain('INSUFFICIENT_FUNDS');
      // Still too little: a retry stays INSUFFICIENT_FUNDS (1 cent cannot pay two deposits of at least 1 cent).
      await fund(client, empty, 1);
      expect(await client.externalBankAccounts.retryMicroDeposits(created.token)).toMatchObject({ verification_state: 'INSUFFICIENT_FUNDS' });
      expect(await balanceOf(client, empty)).toEqual({ available: 1, pending: 0, total: 1 });

      await fund(client, empty, 197);
      const retried = await client.externalBankAccounts.retryMicroDeposits(created.token);
      expect(retried).toMatchObject({ verification_state: 'PENDING', verification_attempts: 0 });
      expect(retried.verification_failed_reason).toBeUndefined();
      // Right after each of the round's events, the funding account's balance is never below zero.
      const { events } = await client.financialAccounts.financialTransactions.retrieve(empty, created.token);
      expect(events.map((event) => event.type as string)).toEqual(['MICRO_DEPOSIT', 'MICRO_DEPOSIT', 'MICRO_DEPOSIT_WITHDRAWAL']);
      for (const event of events) {
        const [after] = (await client.financialAccounts.balances.list(empty, { last_transaction_event_token: event.token })).data;
        expect(after?.available_amount).toBeGreaterThanOrEqual(0);
      }
      expect(await balanceOf(client, empty)).toEqual({ available: 198, pending: 0, total: 198 });
      const amounts = await amountsOf(retried as Eba, empty);
      expect(await client.externalBankAccounts.microDeposits.create(created.token, { micro_deposits: amounts })).toMatchObject({ verification_state: 'ENABLED' });
      expect(await verifyProgramLedger(context.server.server.db.kysely, context.program.programId)).toEqual({ discrepancies: [], entries_sum_cents: 0 });
    });

    it('counts wrong answers and fails on the third of a round; a retry sends new amounts and starts a round, every attempt still counted', async () => {
      const { client } = context.program;
      const created = await create({ verification_method: 'MICRO_DEPOSIT' });
      const amounts = await amountsOf(created);
      const wrong = wrongAmounts(amounts);
      const first = await client.externalBankAccounts.microDeposits.create(created.token, { micro_deposits: wrong });
      expect(first).toMatchObject({ verification_state: 'PENDING', verification_attempts: 1 });
      await client.externalBankAccounts.microDeposits.create(created.token, { micro_deposits: wrong });
      const failed = await client.externalBankAccounts.microDeposits.create(created.token, { micro_deposits: wrong });
      expect(failed).toMatchObject({ verification_state: 'FAILED_VERIFICATION', verification_attempts: 3 });
      expect(failed.verification_failed_reason).toContain('wrong');
      expect(await expectError(client.externalBankAccounts.microDeposits.create(created.token, { micro_deposits: amounts }), 422)).toContain('FAILED_VERIFICATION');

      // verification_attempts is "the number of attempts at verification" (SDK): a retry does not erase them.
      const retried = await client.externalBankAccounts.retryMicroDeposits(created.token);
      expect(retried).toMatchObject({ verification_state: 'PENDING', verification_attempts: 3 });
      expect(retried.verification_failed_reason).toBeUndefined();
      expect(await client.externalBankAccounts.retrieve(created.token)).toMatchObject({ verification_attempts: 3 });
      const fresh = await amountsOf(retried as Eba);
      expect(sorted(fresh)).not.toEqual(sorted(amounts));
      // The new round has three submissions of its own.
      const freshWrong = wrongAmounts(fresh);
      expect(await client.externalBankAccounts.microDeposits.create(created.token, { micro_deposits: freshWrong })).toMatchObject({ verification_state: 'PENDING', verification_attempts: 4 });
      expect(await client.externalBankAccounts.microDeposits.create(created.token, { micro_deposits: freshWrong })).toMatchObject({ verification_state: 'PENDING', verification_attempts: 5 });
      const failedAgain = await client.externalBankAccounts.microDeposits.create(created.token, { micro_deposits: freshWrong });
      expect(failedAgain).toMatchObject({ verification_state: 'FAILED_VERIFICATION', verification_attempts: 6 });
      expect(failedAgain.verification_failed_reason).toBe('micro-deposit amounts were wrong 3 times');
      await client.externalBankAccounts.retryMicroDeposits(created.token);
      const last = await amountsOf(created);
      expect(await client.externalBankAccounts.microDeposits.create(created.token, { micro_deposits: last })).toMatchObject({ verification_state: 'ENABLED', verification_attempts: 7 });
    });

    it('shows each round as its two deposits, then their sum drawn back, in that order', async () => {
      const { client } = context.program;
      const created = await create({ verification_method: 'MICRO_DEPOSIT' });
      for (let round = 1; round < 6; round++) await client.externalBankAccounts.retryMicroDeposits(created.token);
      const { events } = await client.financialAccounts.financialTransactions.retrieve(operating, created.token);
      expect(events).toHaveLength(18);
      for (let round = 0; round < 6; round++) {
        const [first, second, back] = events.slice(3 * round, 3 * round + 3).map((event) => ({ type: event.type as string, amount: event.amount ?? 0 }));
        expect([first?.type, second?.type, back?.type]).toEqual(['MICRO_DEPOSIT', 'MICRO_DEPOSIT', 'MICRO_DEPOSIT_WITHDRAWAL']);
        expect(back?.amount).toBe(-((first?.amount ?? 0) + (second?.amount ?? 0)));
      }
    });

    it('draws new amounts on every retry: the old ones no longer verify, the new ones do in either order', async () => {
      const { client } = context.program;
      const created = await create({ verification_method: 'MICRO_DEPOSIT' });
      let previous = await amountsOf(created);
      for (let round = 0; round < 5; round++) {
        await client.externalBankAccounts.retryMicroDeposits(created.token);
        const fresh = await amountsOf(created);
        expect(sorted(fresh)).not.toEqual(sorted(previous));
        const wrong = await client.externalBankAccounts.microDeposits.create(created.token, { micro_deposits: previous });
        expect(wrong).toMatchObject({ verification_state: 'PENDING', verification_attempts: round + 1 });
        previous = fresh;
      }
      const elsewhere = await newAccount(client, 'funding 2');
      await fund(client, elsewhere, FUNDED_CENTS);
      const moved = await client.externalBankAccounts.retryMicroDeposits(created.token, { financial_account_token: elsewhere });
      expect(moved).toMatchObject({ financial_account_token: elsewhere, verification_attempts: 5 });
      const fresh = await amountsOf(created, elsewhere);
      expect(sorted(fresh)).not.toEqual(sorted(previous));
      const verified = await client.externalBankAccounts.microDeposits.create(created.token, { micro_deposits: sorted(fresh).reverse() });
      expect(verified).toMatchObject({ verification_state: 'ENABLED', verification_attempts: 6 });
      expect(await balanceOf(client, elsewhere)).toEqual({ available: FUNDED_CENTS, pending: 0, total: FUNDED_CENTS });
    });

    it('never sends the last pair again, not even after a retry that found too little to send a new one: the old amounts never verify', async () => {
      const { client } = context.program;
      const empty = await newAccount(client, 'empty funding');
      /** Runs `call` with the service's draws of 1–99 cents answering `cents` in turn (the last one from then on). */
      async function drawing<T>(cents: number[], call: () => Promise<T>): Promise<T> {
        const queue = [...cents];
        const original = crypto.randomInt.bind(crypto) as (min: number, max: number) => number;
        const draw = vi.spyOn(crypto, 'randomInt').mockImplementation(((min: number, max: number) => (min === 1 && max === 100 ? (queue.length > 1 ? queue.shift() : queue[0]) : original(min, max))) as never);
        try {
          return await call();
        } finally {
          draw.mockRestore();
        }
      }
      const created = await drawing([10, 20], () => create({ verification_method: 'MICRO_DEPOSIT' }));
      expect(sorted(await amountsOf(created))).toEqual([10, 20]);
      // A retry naming an account that cannot pay: nothing sent, INSUFFICIENT_FUNDS.
      expect(await client.externalBankAccounts.retryMicroDeposits(created.token, { financial_account_token: empty })).toMatchObject({ verification_state: 'INSUFFICIENT_FUNDS' });
      // The next retry that can send draws the old pair first: it is drawn again, never sent.
      const retried = await drawing([20, 10, 30, 40], () => client.externalBankAccounts.retryMicroDeposits(created.token, { financial_account_token: operating }));
      expect(retried).toMatchObject({ verification_state: 'PENDING' });
      expect(sorted(await amountsOf(created))).toEqual([30, 40]);
      expect(await client.externalBankAccounts.microDeposits.create(created.token, { micro_deposits: [10, 20] })).toMatchObject({ verification_state: 'PENDING', verification_attempts: 1 });
      expect(await client.externalBankAccounts.microDeposits.create(created.token, { micro_deposits: [40, 30] })).toMatchObject({ verification_state: 'ENABLED', verification_attempts: 2 });
    });

    it('runs concurrent submissions and retries of one account one at a time', async () => {
      const { client } = context.program;
      const created = await create({ verification_method: 'MICRO_DEPOSIT' });
      const amounts = await amountsOf(created);
      const wrong = wrongAmounts(amounts);
      const submitted = await Promise.all([1, 2].map(() => client.externalBankAccounts.microDeposits.create(created.token, { micro_deposits: wrong })));
      expect(submitted.map((answer) => answer.verification_attempts).sort()).toEqual([1, 2]);

      const fundings = [await newAccount(client, 'funding a'), await newAccount(client, 'funding b')];
      for (const funding of fundings) await fund(client, funding, FUNDED_CENTS);
      await Promise.all(fundings.map((funding) => client.externalBankAccounts.retryMicroDeposits(created.token, { financial_account_token: funding })));
      const current = await client.externalBankAccounts.retrieve(created.token);
      expect(current).toMatchObject({ verification_state: 'PENDING', verification_attempts: 2 });
      const fresh = await amountsOf(current as Eba, current.financial_account_token);
      expect((await client.externalBankAccounts.microDeposits.create(created.token, { micro_deposits: fresh })).verification_state).toBe('ENABLED');
    });

    it('counts no more than a round allows when submissions arrive together: three wrong ones count (the third fails it), the rest are 422; a right one among wrong ones wins or comes too late', async () => {
      const { client } = context.program;
      const created = await create({ verification_method: 'MICRO_DEPOSIT' });
      const wrong = wrongAmounts(await amountsOf(created));
      const outcomes = await Promise.allSettled([1, 2, 3, 4, 5].map(() => client.externalBankAccounts.microDeposits.create(created.token, { micro_deposits: wrong })));
      const answered = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
      expect(answered.map((answer) => [answer.verification_attempts, answer.verification_state]).sort()).toEqual([
        [1, 'PENDING'],
        [2, 'PENDING'],
        [3, 'FAILED_VERIFICATION'],
      ]);
      for (const outcome of outcomes) if (outcome.status === 'rejected') expect((outcome.reason as { status: number }).status).toBe(422);
      expect(await client.externalBankAccounts.retrieve(created.token)).toMatchObject({ verification_attempts: 3, verification_state: 'FAILED_VERIFICATION' });

      const mixed = await create({ verification_method: 'MICRO_DEPOSIT' });
      const right = await amountsOf(mixed);
      const submissions = [wrongAmounts(right), right, wrongAmounts(right)];
      const settled = await Promise.allSettled(submissions.map((micro_deposits) => client.externalBankAccounts.microDeposits.create(mixed.token, { micro_deposits })));
      const final = await client.externalBankAccounts.retrieve(mixed.token);
      expect(final.verification_state).toBe('ENABLED');
      // Every submission that counted came before the right one: after it, the verification takes no amounts.
      expect(settled.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(final.verification_attempts);
      for (const outcome of settled) if (outcome.status === 'rejected') expect((outcome.reason as { status: number }).status).toBe(422);
    });

    it('a PATCH and a verification arriving together each answer (and announce) the account as the other left it', async () => {
      const { client } = context.program;
      const created = await create({ verification_method: 'MICRO_DEPOSIT' });
      const [patched, verified] = await Promise.all([
        client.externalBankAccounts.update(created.token, { name: 'Renamed' }),
        client.externalBankAccounts.microDeposits.create(created.token, { micro_deposits: await amountsOf(created) }),
      ]);
      const final = await client.externalBankAccounts.retrieve(created.token);
      expect(final).toMatchObject({ name: 'Renamed', verification_state: 'ENABLED', verification_attempts: 1 });
      // The one that committed second shows both changes.
      expect([patched, verified]).toContainEqual(final);
    });

    it('refuses an Idempotency-Key reused with other amounts (400), counting nothing', async () => {
      const { client } = context.program;
      const created = await create({ verification_method: 'MICRO_DEPOSIT' });
      const wrong = wrongAmounts(await amountsOf(created));
      const headers = { 'Idempotency-Key': crypto.randomUUID() };
      await client.externalBankAccounts.microDeposits.create(created.token, { micro_deposits: wrong }, { headers });
      const other = await amountsOf(created);
      expect(await expectError(client.externalBankAccounts.microDeposits.create(created.token, { micro_deposits: other }, { headers }), 400)).toContain('Idempotency-Key');
      expect(await client.externalBankAccounts.retrieve(created.token)).toMatchObject({ verification_attempts: 1, verification_state: 'PENDING' });
    });

    it('never dates a change before the account’s last one (a change stamped by a request that saw a moved clock): PATCH, micro_deposits, both retries', async () => {
      const { client, programId } = context.program;
      const micro = await create({ verification_method: 'MICRO_DEPOSIT' });
      const prenote = await create({ verification_method: 'PRENOTE' });
      const wrong = wrongAmounts(await amountsOf(micro));
      const changes: [Eba, () => Promise<unknown>][] = [
        [prenote, () => client.externalBankAccounts.retryPrenote(prenote.token, {})],
        [micro, () => client.externalBankAccounts.update(micro.token, { name: 'Renamed' })],
        [micro, () => client.externalBankAccounts.microDeposits.create(micro.token, { micro_deposits: wrong })],
        [micro, () => client.externalBankAccounts.retryMicroDeposits(micro.token, {})],
      ];
      let laterMs = Date.parse(micro.created);
      for (const [account, change] of changes) {
        laterMs += 3_600_000;
        // As if the account had last changed at a clock moved an hour ahead by a request that committed first.
        await changedLastAt(context.server.server.db, 'external_bank_accounts', programId, account.token, laterMs);
        const changed = await change();
        const events = (await client.events.list({ event_types: ['external_bank_account.updated'], page_size: 100, with_content: true })).data;
        const event = events.find((item) => (item.payload as { token?: string }).token === account.token);
        expect(event?.payload).toEqual(changed);
        expect(Date.parse(event?.created as string)).toBe(laterMs);
      }
      // The retry's new round of micro-deposits (the last change) is dated with it.
      const { events } = await client.financialAccounts.financialTransactions.retrieve(operating, micro.token);
      expect(events.slice(-3).map((event) => Date.parse(event.created as string))).toEqual([laterMs, laterMs, laterMs]);
    });

    it.each([[[1]], [[1, 2, 3]], [[0, 5]], [[100, 5]], [[1.5, 2]]])('refuses micro_deposits %j with 400', async (micro) => {
      const { client } = context.program;
      const created = await create({ verification_method: 'MICRO_DEPOSIT' });
      expect(await expectError(client.externalBankAccounts.microDeposits.create(created.token, { micro_deposits: micro }), 400)).toContain('micro_deposits');
      expect((await client.externalBankAccounts.retrieve(created.token)).verification_attempts).toBe(0);
    });

    it('takes amounts only for a PENDING micro-deposit verification, and retries only of its own method while PENDING, FAILED_VERIFICATION or INSUFFICIENT_FUNDS (else 422, changing nothing)', async () => {
      const { client } = context.program;
      const empty = await newAccount(client, 'never funded');
      const failed = await create({ verification_method: 'MICRO_DEPOSIT' });
      for (let attempt = 0; attempt < 3; attempt++) await client.externalBankAccounts.microDeposits.create(failed.token, { micro_deposits: wrongAmounts(await amountsOf(failed)) });
      const verified = await create({ verification_method: 'MICRO_DEPOSIT' });
      await client.externalBankAccounts.microDeposits.create(verified.token, { micro_deposits: await amountsOf(verified) });
      type Allowed = { amounts: boolean; retryMicroDeposits: boolean; retryPrenote: boolean };
      const none: Allowed = { amounts: false, retryMicroDeposits: false, retryPrenote: false };
      const accounts: Array<[label: string, token: string, allowed: Allowed]> = [
        ['MICRO_DEPOSIT PENDING', (await create({ verification_method: 'MICRO_DEPOSIT' })).token, { ...none, amounts: true, retryMicroDeposits: true }],
        ['MICRO_DEPOSIT FAILED_VERIFICATION', failed.token, { ...none, retryMicroDeposits: true }],
        ['MICRO_DEPOSIT INSUFFICIENT_FUNDS', (await create({ verification_method: 'MICRO_DEPOSIT', financial_account_token: empty })).token, { ...none, retryMicroDeposits: true }],
        ['MICRO_DEPOSIT ENABLED', verified.token, none],
        ['PRENOTE PENDING', (await create({ verification_method: 'PRENOTE' })).token, { ...none, retryPrenote: true }],
      ];
      for (const method of ['MANUAL', 'EXTERNALLY_VERIFIED', 'UNVERIFIED']) accounts.push([`${method} ENABLED`, (await create({ verification_method: method })).token, none]);
      const steps = {
        amounts: (token: string) => client.externalBankAccounts.microDeposits.create(token, { micro_deposits: [1, 1] }),
        retryMicroDeposits: (token: string) => client.externalBankAccounts.retryMicroDeposits(token),
        retryPrenote: (token: string) => client.externalBankAccounts.retryPrenote(token),
      };
      const stepNames = ['amounts', 'retryMicroDeposits', 'retryPrenote'] as const;
      for (const [label, token, allowed] of accounts) {
        const before = await client.externalBankAccounts.retrieve(token);
        for (const step of stepNames.filter((name) => !allowed[name])) {
          const [method, state] = label.split(' ');
          expect(await expectError(steps[step](token), 422), `${label} ${step}`).toContain(`is ${method} with verification_state ${state}`);
          expect(await client.externalBankAccounts.retrieve(token), `${label} ${step}`).toEqual(before);
        }
        for (const step of stepNames.filter((name) => allowed[name])) expect((await steps[step](token)).token, `${label} ${step}`).toBe(token);
      }
    });

    it('a repeated Idempotency-Key replays a submission without counting it again', async () => {
      const { client } = context.program;
      const created = await create({ verification_method: 'MICRO_DEPOSIT' });
      const wrong = { micro_deposits: wrongAmounts(await amountsOf(created)) };
      const headers = { 'Idempotency-Key': crypto.randomUUID() };
      const first = await client.externalBankAccounts.microDeposits.create(created.token, wrong, { headers });
      expect(first).toMatchObject({ verification_state: 'PENDING', verification_attempts: 1 });
      expect(await client.externalBankAccounts.microDeposits.create(created.token, wrong, { headers })).toEqual(first);
      expect(await client.externalBankAccounts.retrieve(created.token)).toMatchObject({ verification_attempts: 1 });
    });

    it('refuses amounts for an account that does not verify by micro-deposits (422)', async () => {
      const { client } = context.program;
      const manual = await create();
      expect(await expectError(client.externalBankAccounts.microDeposits.create(manual.token, { micro_deposits: [1, 2] }), 422)).toContain('MANUAL');
      expect(await expectError(client.externalBankAccounts.retryMicroDeposits(manual.token, {}), 422)).toContain('MANUAL');
      expect(await expectError(client.externalBankAccounts.retryPrenote(manual.token, {}), 422)).toContain('MANUAL');
    });
  });

  it('enables a PRENOTE account once the program clock has waited out the prenote', async () => {
    const { client } = context.program;
    const created = await create({ verification_method: 'PRENOTE' });
    expect(created.verification_state).toBe('PENDING');
    const retried = await client.externalBankAccounts.retryPrenote(created.token, {});
    expect(retried.verification_state).toBe('PENDING');
    advance(3 * MS_PER_DAY);
    expect((await client.externalBankAccounts.retrieve(created.token)).verification_state).toBe('ENABLED');
    expect(await expectError(client.externalBankAccounts.retryPrenote(created.token, {}), 422)).toContain('ENABLED');
  });

  it('dates a prenote’s enabling when its wait ended, however far past it the clock moved', async () => {
    const { client } = context.program;
    const created = await create({ verification_method: 'PRENOTE' });
    advance(10 * MS_PER_DAY);
    const enabled = await client.externalBankAccounts.retrieve(created.token);
    expect(enabled.verification_state).toBe('ENABLED');
    const events = (await client.events.list({ event_types: ['external_bank_account.updated'], page_size: 100, with_content: true })).data;
    const [event, ...others] = events.filter((item) => (item.payload as { token?: string }).token === created.token);
    expect(others).toEqual([]);
    expect(event?.payload).toEqual(enabled);
    expect(Date.parse(event?.created as string)).toBe(Date.parse(created.created) + PRENOTE_WAIT_MS);
  });

  it('a write catches up on a prenote whose wait ended since the last sweep or read: retry_prenote is a 422, a PATCH answers (and announces) ENABLED', async () => {
    const { client } = context.program;
    const retried = await create({ verification_method: 'PRENOTE' });
    const patched = await create({ verification_method: 'PRENOTE' });
    advance(PRENOTE_WAIT_MS);
    expect(await expectError(client.externalBankAccounts.retryPrenote(retried.token, {}), 422)).toContain('ENABLED');
    const renamed = await client.externalBankAccounts.update(patched.token, { name: 'Renamed' });
    expect(renamed).toMatchObject({ name: 'Renamed', verification_state: 'ENABLED' });
    const announced = await client.events.list({ event_types: ['external_bank_account.updated'], with_content: true });
    expect(announced.data[0]?.payload).toEqual(renamed);
    expect(await client.externalBankAccounts.retrieve(retried.token)).toMatchObject({ verification_state: 'ENABLED' });
  });

  // PostgreSQL: row locks. An authorization on a card of the account locks the account, then (when
  // money fell due) the rows the clock jobs will take, due prenotes among them (transactions/service.ts
  // `findCard`); a retry that enabled a due prenote first and then locks the account waits for it.
  it.skipIf(engine !== 'postgres')('a retry locks its bank account\'s account before it enables the prenotes that fell due, as an authorization on the account does', async () => {
    const { client, programId } = context.program;
    const accountToken = await acceptedAccountToken(client);
    const micro = await create({ account_token: accountToken, verification_method: 'MICRO_DEPOSIT' });
    const prenote = await create({ verification_method: 'PRENOTE' });
    advance(PRENOTE_WAIT_MS); // the prenote is due; nothing has enabled it yet
    const { db } = context.server.server;
    // Stands for the authorization: it holds the account, then needs the due prenote. Not retried: a deadlock fails it.
    let retried: Promise<Eba> | undefined;
    const waitedMs = await db.kysely.transaction().execute(async (tx) => {
      expect(await accountStore.lock(db, tx, programId, accountToken)).toBeDefined();
      retried = client.externalBankAccounts.retryMicroDeposits(micro.token, {}) as Promise<Eba>;
      await new Promise((resolve) => setTimeout(resolve, 300));
      const started = performance.now();
      await store.lockDuePrenotes(db, tx, programId, wall.nowMs());
      return performance.now() - started;
    });
    expect(waitedMs).toBeLessThan(500); // a deadlock is detected only after deadlock_timeout (1 s)
    expect((await (retried as Promise<Eba>)).verification_state).toBe('PENDING');
    expect((await client.externalBankAccounts.retrieve(prenote.token)).verification_state).toBe('ENABLED');
  });

  it('never enables a prenote whose wait a retry restarted after the clock job read it', async () => {
    const created = await create({ verification_method: 'PRENOTE' });
    const { db } = context.server.server;
    const startedMs = Date.parse(created.created);
    // The job read the prenote as due at the old time; the retry has since set a new wait.
    expect(await store.enableDuePrenote(db.kysely, context.program.programId, created.token, startedMs + 3 * MS_PER_DAY - 1, startedMs + 3 * MS_PER_DAY - 1)).toBe(0);
    expect((await context.program.client.externalBankAccounts.retrieve(created.token)).verification_state).toBe('PENDING');
    expect(await store.enableDuePrenote(db.kysely, context.program.programId, created.token, startedMs + 3 * MS_PER_DAY, startedMs + 3 * MS_PER_DAY)).toBe(1);
  });

  describe('names and identifiers must show something', () => {
    const names = ['owner', 'name', 'doing_business_as', 'company_id', 'user_defined_id'] as const;

    it.each(names)('refuses a blank %s or one with a control character, on create and on update, with 400 naming it, and changes nothing', async (field) => {
      const { client } = context.program;
      const created = await create();
      for (const value of NOT_VISIBLE_TEXTS) {
        await expectRefused(() => create({ [field]: value }), notVisibleMessage(field));
        expect(await expectError(client.externalBankAccounts.update(created.token, { [field]: value }), 400)).toBe(notVisibleMessage(field));
      }
      expect(await client.externalBankAccounts.retrieve(created.token)).toEqual(created);
    });

    it('takes names with spaces inside and around them and letters beyond ASCII, as given', async () => {
      const { client } = context.program;
      const created = await create({ owner: VISIBLE_TEXT, name: VISIBLE_TEXT });
      expect([created.owner, created.name]).toEqual([VISIBLE_TEXT, VISIBLE_TEXT]);
      const updated = await client.externalBankAccounts.update(created.token, { doing_business_as: VISIBLE_TEXT });
      expect(updated.doing_business_as).toBe(VISIBLE_TEXT);
    });
  });

  it('updates the editable fields and nothing else', async () => {
    const { client } = context.program;
    const created = await create();
    const updated = await client.externalBankAccounts.update(created.token, { name: 'Renamed', owner: 'Grace Hopper', owner_type: 'BUSINESS', type: 'SAVINGS' });
    expect(updated).toMatchObject({ name: 'Renamed', owner: 'Grace Hopper', owner_type: 'BUSINESS', type: 'SAVINGS', last_four: created.last_four });
    expect(await client.externalBankAccounts.retrieve(created.token)).toEqual(updated);
    expect(await expectError(client.externalBankAccounts.update(created.token, { routing_number: '011000015' } as never), 400)).toContain('routing_number');
    expect(await expectError(client.externalBankAccounts.update(created.token, { owner_type: 'TRUST' } as never), 400)).toContain('owner_type');
    expect(await expectError(client.externalBankAccounts.update(crypto.randomUUID(), { name: 'x' }), 404)).toContain('external bank account');
  });

  // PostgreSQL only: the test holds the row's lock in a transaction of its own while the PATCH runs.
  it.skipIf(engine !== 'postgres')('a PATCH waits for a concurrent verification and answers (and announces) the state it left', async () => {
    const created = await create({ verification_method: 'PRENOTE' });
    const { db } = context.server.server;
    let patched: Promise<Eba> | undefined;
    await db.kysely.transaction().execute(async (tx) => {
      expect(await store.lock(db, tx, context.program.programId, created.token)).toBeDefined();
      patched = context.program.client.externalBankAccounts.update(created.token, { name: 'Renamed meanwhile' }) as Promise<Eba>;
      await new Promise((resolve) => setTimeout(resolve, 150));
      // Stands for the prenote's wait ending in another request.
      await tx.updateTable('external_bank_accounts').set({ verification_state: 'ENABLED', prenote_due_ms: null }).where('token', '=', created.token).execute();
    });
    expect(await patched).toMatchObject({ name: 'Renamed meanwhile', verification_state: 'ENABLED' });
    const announced = await context.program.client.events.list({ event_types: ['external_bank_account.updated'], with_content: true });
    expect(announced.data[0]?.payload).toMatchObject({ token: created.token, name: 'Renamed meanwhile', verification_state: 'ENABLED' });
  });

  describe('one record per bank account and owner', () => {
    it('refuses the same routing and account number for the same owner (422 naming the existing one), whatever the method', async () => {
      const { client } = context.program;
      const first = await create();
      const numbers = { account_number: body().account_number as string, routing_number: '011000015' };
      const existing = await create(numbers);
      for (const again of [numbers, { ...numbers, verification_method: 'EXTERNALLY_VERIFIED', financial_account_token: undefined }, { ...numbers, verification_method: 'PRENOTE', type: 'SAVINGS' }]) {
        const count = (await client.externalBankAccounts.list({ page_size: 100 })).data.length;
        expect(await expectError(create(again), 422)).toContain(existing.token);
        expect((await client.externalBankAccounts.list({ page_size: 100 })).data.length).toBe(count);
      }
      // Another routing number, another account number with the same last four, another owner, another program: all new records.
      expect((await create({ ...numbers, routing_number: first.routing_number })).token).not.toBe(existing.token);
      expect((await create({ ...numbers, account_number: numbers.account_number.slice(1) })).last_four).toBe(existing.last_four);
      const accountToken = (await context.server.server.db.kysely.selectFrom('accounts').select('token').where('program_id', '=', context.program.programId).executeTakeFirstOrThrow()).token;
      const owned = await create({ ...numbers, account_token: accountToken });
      expect(owned.account_token).toBe(accountToken);
      expect(await expectError(create({ ...numbers, account_token: accountToken }), 422)).toContain(owned.token);
      const other = await context.server.newProgram('same numbers elsewhere');
      expect((await create({ ...numbers, financial_account_token: await newAccount(other.client) }, other.client)).last_four).toBe(existing.last_four);
    });

    it('refuses a Plaid account the owner already linked', async () => {
      const { client } = context.program;
      const plaid = { owner: 'Ada Lovelace', owner_type: 'INDIVIDUAL', processor_token: 'processor-sandbox-duplicate', verification_method: 'PLAID' } as const;
      const linked = await client.externalBankAccounts.create(plaid);
      expect(await expectError(client.externalBankAccounts.create(plaid), 422)).toContain(linked.token);
    });

    it('creates one of three concurrent requests for the same account', async () => {
      const same = body();
      const settled = await Promise.allSettled([1, 2, 3].map(() => context.program.client.externalBankAccounts.create(same as never)));
      expect(settled.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      for (const outcome of settled) if (outcome.status === 'rejected') expect((outcome.reason as { status: number }).status).toBe(422);
    });
  });

  describe('the funding account must be OPEN', () => {
    let closed: string;

    beforeAll(async () => {
      const { client } = context.program;
      closed = await newAccount(client, 'closed funding');
      await client.financialAccounts.updateStatus(closed, { status: 'CLOSED', substatus: null });
    });

    it.each(['MANUAL', 'PRENOTE', 'MICRO_DEPOSIT', 'EXTERNALLY_VERIFIED'])('refuses to create a %s account funded by a CLOSED financial account (422), creating nothing', async (method) => {
      const { client } = context.program;
      const count = async () => (await client.externalBankAccounts.list({ page_size: 100 })).data.length;
      const before = await count();
      expect(await expectError(create({ verification_method: method, financial_account_token: closed }), 422)).toContain('financial_account_token');
      expect(await count()).toBe(before);
    });

    it.each([
      ['PRENOTE', 'retryPrenote'],
      ['MICRO_DEPOSIT', 'retryMicroDeposits'],
    ] as const)('refuses to retry a %s verification from a CLOSED financial account (422), changing nothing', async (method, retry) => {
      const { client } = context.program;
      const created = await create({ verification_method: method });
      expect(await expectError(client.externalBankAccounts[retry](created.token, { financial_account_token: closed }), 422)).toContain('financial_account_token');
      expect(await client.externalBankAccounts.retrieve(created.token)).toEqual(created);
    });
  });

  it('refuses a date of birth in the future, on create and on update (400), as account holders do', async () => {
    const { client } = context.program;
    const now = (await client.get<unknown, { now: string }>('/v1/simulate/clock')).now;
    const tomorrow = new Date(Date.parse(now) + MS_PER_DAY).toISOString().slice(0, 10);
    await expectRefused(() => create({ dob: tomorrow }), 'dob: must not be in the future');
    const created = await create({ dob: now.slice(0, 10) });
    expect(await expectError(client.externalBankAccounts.update(created.token, { dob: tomorrow }), 400)).toContain('dob: must not be in the future');
    expect(await client.externalBankAccounts.retrieve(created.token)).toEqual(created);
  });

  describe('list (seed 4.5)', () => {
    let lister: TestProgram;
    let made: Eba[];
    let accountToken: string;

    beforeAll(async () => {
      lister = await context.server.newProgram('lister');
      const funding = await newAccount(lister.client);
      await fund(lister.client, funding, FUNDED_CENTS);
      accountToken = (await context.server.server.db.kysely.selectFrom('accounts').select('token').where('program_id', '=', lister.programId).executeTakeFirstOrThrow()).token;
      const make = (extra: CreateBody) => create({ financial_account_token: funding, ...extra }, lister.client);
      made = [
        await make({ type: 'CHECKING', owner_type: 'INDIVIDUAL' }),
        await make({ type: 'SAVINGS', owner_type: 'BUSINESS', account_token: accountToken }),
        await make({ type: 'CHECKING', verification_method: 'MICRO_DEPOSIT' }),
        await make({ type: 'SAVINGS', verification_method: 'PRENOTE', account_token: accountToken }),
      ];
    });

    const tokens = (page: { data: { token: string }[] }) => page.data.map((item) => item.token);
    const madeTokens = (...indexes: number[]) => indexes.map((index) => (made[index] as Eba).token);
    const get = async (query: string) => {
      const response = await context.server.request('GET', `/v1/external_bank_accounts?${query}`, { apiKey: lister.apiKey });
      expect(response.status, query).toBe(200);
      return tokens((await response.json()) as { data: { token: string }[] });
    };

    it('lists newest first and filters by every parameter', async () => {
      expect(tokens(await lister.client.externalBankAccounts.list())).toEqual(madeTokens(3, 2, 1, 0));
      expect(tokens(await lister.client.externalBankAccounts.list({ account_token: accountToken }))).toEqual(madeTokens(3, 1));
      expect(tokens(await lister.client.externalBankAccounts.list({ account_types: ['SAVINGS'] }))).toEqual(madeTokens(3, 1));
      expect(tokens(await lister.client.externalBankAccounts.list({ owner_types: ['BUSINESS'] }))).toEqual(madeTokens(1));
      expect(tokens(await lister.client.externalBankAccounts.list({ countries: ['USA'] }))).toEqual(madeTokens(3, 2, 1, 0));
      expect(tokens(await lister.client.externalBankAccounts.list({ countries: ['CAN'] }))).toEqual([]);
      expect(tokens(await lister.client.externalBankAccounts.list({ states: ['ENABLED'] }))).toEqual(madeTokens(3, 2, 1, 0));
      expect(tokens(await lister.client.externalBankAccounts.list({ states: ['PAUSED', 'CLOSED'] }))).toEqual([]);
      expect(tokens(await lister.client.externalBankAccounts.list({ verification_states: ['PENDING'] }))).toEqual(madeTokens(3, 2));
      expect(tokens(await lister.client.externalBankAccounts.list({ verification_states: ['PENDING', 'ENABLED'], account_types: ['CHECKING'] }))).toEqual(madeTokens(2, 0));
    });

    it('takes array filters comma-separated or repeated', async () => {
      expect(await get('verification_states=PENDING,FAILED_VERIFICATION')).toEqual(madeTokens(3, 2));
      expect(await get('verification_states=PENDING&verification_states=FAILED_VERIFICATION')).toEqual(madeTokens(3, 2));
      expect(await get('account_types=SAVINGS&account_types=CHECKING&states=ENABLED')).toEqual(madeTokens(3, 2, 1, 0));
    });

    it('pages with page_size 1–100 and both cursors', async () => {
      const page = await lister.client.externalBankAccounts.list({ page_size: 3 });
      expect(tokens(page)).toEqual(madeTokens(3, 2, 1));
      expect(page.has_more).toBe(true);
      expect(await get(`page_size=3&starting_after=${(made[1] as Eba).token}`)).toEqual(madeTokens(0));
      expect(await get(`page_size=2&ending_before=${(made[0] as Eba).token}`)).toEqual(madeTokens(2, 1));
      const all: string[] = [];
      for await (const item of lister.client.externalBankAccounts.list({ page_size: 1 })) all.push(item.token);
      expect(all).toEqual(madeTokens(3, 2, 1, 0));
      expect(await get('page_size=100')).toEqual(madeTokens(3, 2, 1, 0));
    });

    it.each(['page_size=0', 'page_size=101', 'page_size=x', 'states=OPEN', 'account_types=CHECKING,BROKERAGE', 'verification_states=DONE', 'owner_types=TRUST', 'account_token=nope', `starting_after=${crypto.randomUUID()}`, 'colour=red'])(
      'refuses %s with 400',
      async (query) => {
        const response = await context.server.request('GET', `/v1/external_bank_accounts?${query}`, { apiKey: lister.apiKey });
        expect(response.status).toBe(400);
      },
    );

    it('keeps programs apart', async () => {
      const { client } = context.program;
      expect(tokens(await client.externalBankAccounts.list({ account_token: accountToken }))).toEqual([]);
      await expectError(client.externalBankAccounts.retrieve((made[0] as Eba).token), 404);
      await expectError(client.externalBankAccounts.update((made[0] as Eba).token, { name: 'x' }), 404);
      await expectError(client.externalBankAccounts.microDeposits.create((made[2] as Eba).token, { micro_deposits: [1, 2] }), 404);
      await expectError(client.externalBankAccounts.retryMicroDeposits((made[2] as Eba).token), 404);
      await expectError(client.externalBankAccounts.retryPrenote((made[3] as Eba).token), 404);
      expect(await expectError(create({ account_token: accountToken }), 404)).toContain('account_token');
      // Another program's funding account is unknown here, on create and on the retries, and changes nothing of its own.
      const theirFunding = (made[2] as Eba).financial_account_token as string;
      expect(await expectError(create({ verification_method: 'MICRO_DEPOSIT', financial_account_token: theirFunding }), 404)).toContain('financial_account_token');
      const mine = await create({ verification_method: 'MICRO_DEPOSIT' });
      expect(await expectError(client.externalBankAccounts.retryMicroDeposits(mine.token, { financial_account_token: theirFunding }), 404)).toContain('financial_account_token');
      expect(await client.externalBankAccounts.retrieve(mine.token)).toEqual(mine);
      expect(await balanceOf(lister.client, theirFunding)).toEqual({ available: FUNDED_CENTS, pending: 0, total: FUNDED_CENTS });
      expect(await lister.client.externalBankAccounts.retrieve((made[2] as Eba).token)).toEqual(made[2]);
    });
  });
});
