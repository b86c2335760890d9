/**
 * KYB_DELEGATED enrollment (SDK 0.119's fourth create variant) end to end over HTTP with the SDK:
 * the minimal and the full body, every required field and bad value (400 naming it, nothing
 * created), retrieve and list, the KYB patch, authorized users of a delegated business, and the
 * enrollment review, which has nothing to decide (the holder is ACCEPTED at once: verification.ts).
 */
import crypto from 'node:crypto';
import Lithic from 'lithic';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiFailure } from '../testing/api-errors.js';
import { enroll, enrollmentCounts, fullKybDelegatedBody, kybDelegatedBody, kycExemptBody, US_ADDRESS, withField, withoutEntityTokens } from '../testing/enrollment.js';
import { describeWithDb, type TestProgram, useTestServer } from '../testing/harness.js';

type Body = Record<string, unknown>;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The fields of a holder ACCEPTED at enrollment, as retrieve answers them. */
function acceptedAtEnrollment(created: Lithic.AccountHolderCreateResponse) {
  return {
    token: created.token,
    account_token: created.account_token,
    created: created.created,
    user_type: 'BUSINESS',
    status: 'ACCEPTED',
    status_reasons: [],
    verification_application: { created: created.created, status: 'ACCEPTED', status_reasons: [], updated: created.created },
  };
}

describeWithDb('KYB_DELEGATED account holders', () => {
  const context = useTestServer();
  const counts = (program: TestProgram) => enrollmentCounts(program.client);

  describe('enrollment', () => {
    it('the minimal body (business address and legal name) is ACCEPTED at once, with an ACTIVE account and its ISSUING financial account', async () => {
      const body = kybDelegatedBody();
      const created = await enroll(context.program.client, body);
      expect(created).toEqual({ token: expect.stringMatching(UUID), account_token: expect.stringMatching(UUID), status: 'ACCEPTED', status_reasons: [], created: expect.any(String) });

      const holder = await context.program.client.accountHolders.retrieve(created.token);
      expect(holder).toEqual({
        ...acceptedAtEnrollment(created),
        // What the body left out: absent where the SDK's type allows it, empty where the type requires it (as for KYB).
        business_entity: {
          entity_token: expect.stringMatching(UUID),
          legal_business_name: 'Delegated Goods LLC',
          address: body.business_entity.address,
          government_id: '',
          phone_numbers: [],
          dba_business_name: '',
        },
        beneficial_owner_individuals: [],
        nature_of_business: '',
        website_url: '',
      });

      const account = await context.program.client.accounts.retrieve(created.account_token);
      expect(account).toMatchObject({
        token: created.account_token,
        state: 'ACTIVE',
        account_holder: { token: created.token, business_account_token: '', email: '', phone_number: '' },
        verification_address: body.business_entity.address,
      });
      const funding = await context.program.client.financialAccounts.list({ account_token: created.account_token });
      expect(funding.data.map((financialAccount) => [financialAccount.type, financialAccount.status])).toEqual([['ISSUING', 'OPEN']]);
      const card = await context.program.client.cards.create({ type: 'VIRTUAL', account_token: created.account_token });
      expect(card.account_token).toBe(created.account_token);
    });

    it('a body without workflow is KYB_DELEGATED, the one variant whose SDK type leaves it optional', async () => {
      const created = await enroll(context.program.client, withField(kybDelegatedBody(), 'workflow', undefined));
      expect(created).toMatchObject({ status: 'ACCEPTED', status_reasons: [] });
      expect(created).not.toHaveProperty('required_documents');
      const holder = await context.program.client.accountHolders.retrieve(created.token);
      expect(holder).toMatchObject({ user_type: 'BUSINESS', business_entity: { legal_business_name: 'Delegated Goods LLC' } });
    });

    it('the full body keeps every field, masks the EIN and keeps government ids encrypted and out of responses', async () => {
      const body = fullKybDelegatedBody();
      const created = await enroll(context.program.client, body);
      expect(created).toEqual({ token: expect.any(String), account_token: expect.any(String), status: 'ACCEPTED', status_reasons: [], created: expect.any(String), external_id: body.external_id });

      const holder = await context.program.client.accountHolders.retrieve(created.token);
      const owner = body.beneficial_owner_individuals[0] as (typeof body.beneficial_owner_individuals)[number];
      expect(holder).toEqual({
        ...acceptedAtEnrollment(created),
        external_id: body.external_id,
        email: body.control_person.email,
        phone_number: body.control_person.phone_number,
        business_entity: {
          entity_token: expect.stringMatching(UUID),
          legal_business_name: 'Busy Business, Inc.',
          dba_business_name: 'Busy',
          parent_company: 'Busy Holdings',
          government_id: '*****6789',
          phone_numbers: body.business_entity.phone_numbers,
          address: body.business_entity.address,
        },
        control_person: {
          entity_token: expect.stringMatching(UUID),
          first_name: 'Tom',
          last_name: 'Doe',
          email: body.control_person.email,
          phone_number: body.control_person.phone_number,
          dob: body.control_person.dob,
          address: US_ADDRESS,
        },
        beneficial_owner_individuals: [
          { entity_token: expect.stringMatching(UUID), first_name: 'Tim', last_name: 'Doe', email: owner.email, phone_number: owner.phone_number, dob: owner.dob, address: US_ADDRESS },
        ],
        nature_of_business: body.nature_of_business,
        website_url: body.website_url,
      });

      const text = await (await context.server.request('GET', `/v1/account_holders/${created.token}`, { apiKey: context.program.apiKey })).text();
      expect(text).not.toMatch(/123456789|12-3456789|111223333|111-22-3333|222334444/);
      const row = await context.server.server.db.kysely
        .selectFrom('account_holders')
        .selectAll()
        .where('program_id', '=', context.program.programId)
        .where('token', '=', created.token)
        .executeTakeFirstOrThrow();
      expect(row.workflow).toBe('KYB_DELEGATED');
      const ids = JSON.parse(context.server.server.app.deps.secrets.decrypt(row.government_ids_encrypted as string)) as Record<string, string>;
      expect(ids).toEqual({
        [holder.business_entity?.entity_token as string]: '123456789',
        [holder.control_person?.entity_token as string]: '111223333',
        [holder.beneficial_owner_individuals?.[0]?.entity_token as string]: '222334444',
      });
    });

    it('stores no government ids when none was given', async () => {
      const created = await enroll(context.program.client, kybDelegatedBody());
      const row = await context.server.server.db.kysely
        .selectFrom('account_holders')
        .select('government_ids_encrypted')
        .where('program_id', '=', context.program.programId)
        .where('token', '=', created.token)
        .executeTakeFirstOrThrow();
      expect(row.government_ids_encrypted).toBeNull();
    });

    it('takes four beneficial owners and an empty list of them', async () => {
      const full = fullKybDelegatedBody();
      const four = withField(full, 'beneficial_owner_individuals', [1, 2, 3, 4].map((n) => ({ ...full.control_person, first_name: `Owner${n}` })));
      const holder = await context.program.client.accountHolders.retrieve((await enroll(context.program.client, four)).token);
      expect(holder.beneficial_owner_individuals?.map((owner) => owner.first_name)).toEqual(['Owner1', 'Owner2', 'Owner3', 'Owner4']);
      const none = await enroll(context.program.client, withField(kybDelegatedBody(), 'beneficial_owner_individuals', []));
      expect((await context.program.client.accountHolders.retrieve(none.token)).beneficial_owner_individuals).toEqual([]);
    });

    it('an authorized user of a delegated business is enrolled (KYC_EXEMPT with its business_account_token)', async () => {
      const business = await enroll(context.program.client, kybDelegatedBody());
      const user = await enroll(context.program.client, { ...kycExemptBody('AUTHORIZED_USER'), business_account_token: business.account_token });
      expect(user.status).toBe('ACCEPTED');
      expect((await context.program.client.accountHolders.retrieve(user.token)).business_account_token).toBe(business.account_token);
      const account = await context.program.client.accounts.retrieve(user.account_token);
      expect(account.account_holder).toMatchObject({ token: user.token, business_account_token: business.account_token });
    });

    it('has nothing for the enrollment review to decide: 422, and the holder stays ACCEPTED', async () => {
      const created = await enroll(context.program.client, kybDelegatedBody());
      const failure = await apiFailure(
        context.program.client.accountHolders.simulateEnrollmentReview({ account_holder_token: created.token, status: 'REJECTED', status_reasons: ['PRIMARY_BUSINESS_ENTITY_SOS_NOT_MATCHED'] }),
      );
      expect(failure).toEqual({ status: 422, message: `account_holder_token: account holder '${created.token}' is ACCEPTED, not pending review` });
      expect((await context.program.client.accountHolders.retrieve(created.token)).status).toBe('ACCEPTED');
      expect((await context.program.client.accounts.retrieve(created.account_token)).state).toBe('ACTIVE');
    });
  });

  describe('validation: 400 naming the field, and nothing created', () => {
    const minimal = kybDelegatedBody();
    const full = fullKybDelegatedBody();
    const ADDRESS_FIELDS = ['address1', 'city', 'country', 'postal_code', 'state'];
    const PERSON_FIELDS = ['address', 'dob', 'email', 'first_name', 'last_name', 'government_id'];
    const omissions: Array<[string, Body, string]> = [
      ['business_entity', withField(minimal, 'business_entity', undefined), 'business_entity: is required'],
      ...['address', 'legal_business_name'].map((field): [string, Body, string] => [`business_entity.${field}`, withField(minimal, `business_entity.${field}`, undefined), `business_entity.${field}: is required`]),
      ...ADDRESS_FIELDS.map((field): [string, Body, string] => [`business_entity.address.${field}`, withField(minimal, `business_entity.address.${field}`, undefined), `business_entity.address.${field}: is required`]),
      ...PERSON_FIELDS.map((field): [string, Body, string] => [`control_person.${field}`, withField(full, `control_person.${field}`, undefined), `control_person.${field}: is required`]),
      ...PERSON_FIELDS.map((field): [string, Body, string] => [`beneficial_owner_individuals[0].${field}`, withField(full, `beneficial_owner_individuals.0.${field}`, undefined), `beneficial_owner_individuals[0].${field}: is required`]),
      ['control_person.address.city', withField(full, 'control_person.address.city', undefined), 'control_person.address.city: is required'],
    ];
    const fiveOwners = Array.from({ length: 5 }, () => full.control_person);
    const badValues: Array<[string, Body, string]> = [
      ['workflow of no variant', withField(minimal, 'workflow', 'KYB_DELEGATE'), 'workflow: must be one of KYB_BASIC, KYB_BYO, KYB_DELEGATED, KYC_BASIC, KYC_BYO, KYC_EXEMPT'],
      ['workflow null', withField(minimal, 'workflow', null), 'workflow: must be string'],
      ['business ZIP', withField(minimal, 'business_entity.address.postal_code', '1234'), 'business_entity.address.postal_code: must be a five-digit ZIP or a nine-digit ZIP+4 (12345 or 12345-6789)'],
      ['business state', withField(minimal, 'business_entity.address.state', 'ny'), 'business_entity.address.state: must be an uppercase two-letter US state code (ISO 3166-2, e.g. NY)'],
      ['business country', withField(minimal, 'business_entity.address.country', 'CAN'), 'business_entity.address.country: must be "USA"'],
      ['business PO box', withField(minimal, 'business_entity.address.address1', 'PO Box 7'), 'business_entity.address.address1: PO boxes are not accepted; give a street address (APO/FPO are accepted)'],
      ['business address field', withField(minimal, 'business_entity.address.zip', '10001'), 'business_entity.address.zip: is not a recognised field'],
      ['empty legal name', withField(minimal, 'business_entity.legal_business_name', ''), 'business_entity.legal_business_name: must NOT have fewer than 1 characters'],
      ['EIN', withField(minimal, 'business_entity.government_id', '123-45-6789'), 'business_entity.government_id: must be a nine-digit EIN, with or without hyphen (12-3456789)'],
      ['business phone', withField(minimal, 'business_entity.phone_numbers', ['+15555550101', '555']), 'business_entity.phone_numbers[1]: must be an E.164 phone number: + and up to 15 digits, e.g. +15555555555'],
      ['no business phones', withField(minimal, 'business_entity.phone_numbers', []), 'business_entity.phone_numbers: must NOT have fewer than 1 items'],
      ['empty dba', withField(minimal, 'business_entity.dba_business_name', ''), 'business_entity.dba_business_name: must NOT have fewer than 1 characters'],
      ['business unknown field', withField(minimal, 'business_entity.naics_code', '541512'), 'business_entity.naics_code: is not a recognised field'],
      ['control person SSN', withField(full, 'control_person.government_id', '12-3456789'), 'control_person.government_id: must be a nine-digit SSN or ITIN, with or without hyphens (123-45-6789)'],
      ['control person dob', withField(full, 'control_person.dob', '2999-01-01'), 'control_person.dob: must not be in the future'],
      ['control person phone', withField(full, 'control_person.phone_number', '5555550100'), 'control_person.phone_number: must be an E.164 phone number: + and up to 15 digits, e.g. +15555555555'],
      ['control person email', withField(full, 'control_person.email', 'nope'), 'control_person.email: must be a valid email'],
      ['control person UPS drop', withField(full, 'control_person.address.address2', 'The UPS Store #1'), 'control_person.address.address2: UPS and FedEx drop locations are not accepted; give a street address'],
      ['owner dob', withField(full, 'beneficial_owner_individuals.0.dob', '1990-02-30'), 'beneficial_owner_individuals[0].dob: must be an RFC 3339 date such as 1990-04-12'],
      ['five owners', withField(full, 'beneficial_owner_individuals', fiveOwners), 'beneficial_owner_individuals: must NOT have more than 4 items'],
      ['owners not a list', withField(full, 'beneficial_owner_individuals', full.control_person), 'beneficial_owner_individuals: must be array'],
      ['tos_timestamp', withField(full, 'tos_timestamp', 'yesterday'), 'tos_timestamp: must be a valid date-time'],
      ['nature_of_business empty', withField(full, 'nature_of_business', ''), 'nature_of_business: must NOT have fewer than 1 characters'],
      ['website', withField(full, 'website_url', 'not a url'), 'website_url: must be an http:// or https:// URL naming a host'],
      ['external_id empty', withField(full, 'external_id', ''), 'external_id: must NOT have fewer than 1 characters'],
      ['NUL character', withField(minimal, 'business_entity.legal_business_name', 'Acme\u0000'), 'business_entity.legal_business_name: must not contain the NUL character (U+0000)'],
      // Fields of other variants, and of later SDKs (naics_code), are not KYB_DELEGATED's.
      ['kyb_passed_timestamp', withField(minimal, 'kyb_passed_timestamp', '2024-01-02T00:00:00Z'), 'kyb_passed_timestamp: is not a recognised field'],
      ['beneficial_owner_entities', withField(minimal, 'beneficial_owner_entities', []), 'beneficial_owner_entities: is not a recognised field'],
      ['naics_code', withField(minimal, 'naics_code', '541512'), 'naics_code: is not a recognised field'],
      ['individual', withField(minimal, 'individual', full.control_person), 'individual: is not a recognised field'],
      ['no workflow, unknown field', withField(withField(minimal, 'workflow', undefined), 'kyc_exemption_type', 'AUTHORIZED_USER'), 'kyc_exemption_type: is not a recognised field'],
    ];

    it.each([...omissions, ...badValues])('%s', async (_name, body, message) => {
      const before = await counts(context.program);
      const error = await apiFailure(enroll(context.program.client, body));
      expect(error).toEqual({ status: 400, message });
      expect(await counts(context.program)).toEqual(before);
    });

    it('an authorized user of a business that is not enrolled is still refused (422), so is an unknown account (404)', async () => {
      const unknown = crypto.randomUUID();
      const failure = await apiFailure(enroll(context.program.client, { ...kycExemptBody('AUTHORIZED_USER'), business_account_token: unknown }));
      expect(failure.status).toBe(404);
      const closed = await enroll(context.program.client, kybDelegatedBody());
      await context.program.client.accounts.update(closed.account_token, { state: 'CLOSED' });
      const before = await counts(context.program);
      const refused = await apiFailure(enroll(context.program.client, { ...kycExemptBody('AUTHORIZED_USER'), business_account_token: closed.account_token }));
      expect(refused).toEqual({ status: 422, message: `business_account_token: account '${closed.account_token}' is CLOSED` });
      expect(await counts(context.program)).toEqual(before);
    });
  });

  describe('listing', () => {
    let lister: TestProgram;
    let minimal: Lithic.AccountHolderCreateResponse;
    let full: Lithic.AccountHolderCreateResponse;
    const fullBody = fullKybDelegatedBody();

    beforeAll(async () => {
      lister = await context.server.newProgram('delegated lister');
      minimal = await enroll(lister.client, kybDelegatedBody());
      full = await enroll(lister.client, withField(fullBody, 'business_entity.legal_business_name', 'Northwind Traders'));
    });

    const tokens = (query: Record<string, unknown>) => lister.client.accountHolders.list(query as never).then((page) => page.data.map((holder) => holder.token));

    it('lists delegated holders as retrieve answers them, newest first', async () => {
      const page = await lister.client.accountHolders.list();
      expect(page.data.map((holder) => holder.token)).toEqual([full.token, minimal.token]);
      expect(page.data).toEqual([await lister.client.accountHolders.retrieve(full.token), await lister.client.accountHolders.retrieve(minimal.token)]);
    });

    it('filters by business name, the control person’s e-mail and phone, and external_id', async () => {
      expect(await tokens({ legal_business_name: 'delegated goods' })).toEqual([minimal.token]);
      expect(await tokens({ legal_business_name: 'NORTHWIND' })).toEqual([full.token]);
      expect(await tokens({ email: fullBody.control_person.email.toUpperCase() })).toEqual([full.token]);
      expect(await tokens({ phone_number: fullBody.control_person.phone_number })).toEqual([full.token]);
      expect(await tokens({ external_id: fullBody.external_id })).toEqual([full.token]);
      expect(await tokens({ first_name: 'Tom' })).toEqual([]);
    });
  });

  describe('updates (the KYB patch)', () => {
    const update = (token: string, body: Body) => context.program.client.accountHolders.update(token, body as Lithic.AccountHolderUpdateParams);
    const retrieve = (token: string) => context.program.client.accountHolders.retrieve(token);

    it('fills in what the minimal body left out and answers the whole holder; the list finds the new values', async () => {
      const created = await enroll(context.program.client, kybDelegatedBody());
      const before = await retrieve(created.token);
      const entityToken = before.business_entity?.entity_token as string;
      const patched = await update(created.token, {
        business_entity: { entity_token: entityToken, government_id: '98-7654321', phone_numbers: ['+15555550199'], legal_business_name: 'Renamed Goods LLC', address: { city: 'Brooklyn', postal_code: '11201' } },
        nature_of_business: 'Hardware',
        website_url: 'https://renamed.example.com',
        external_id: `renamed-${created.token}`,
      });
      const after = await retrieve(created.token);
      expect(patched).toEqual(withoutEntityTokens(after));
      expect(after).toMatchObject({
        status: 'ACCEPTED',
        business_entity: {
          entity_token: entityToken,
          government_id: '*****4321',
          phone_numbers: ['+15555550199'],
          legal_business_name: 'Renamed Goods LLC',
          address: { ...before.business_entity?.address, city: 'Brooklyn', postal_code: '11201' },
        },
        nature_of_business: 'Hardware',
        website_url: 'https://renamed.example.com',
        external_id: `renamed-${created.token}`,
      });
      const listed = await context.program.client.accountHolders.list({ legal_business_name: 'renamed goods' });
      expect(listed.data.map((holder) => holder.token)).toEqual([created.token]);
    });

    it('patches the control person of a full holder; the list finds the new e-mail', async () => {
      const created = await enroll(context.program.client, fullKybDelegatedBody());
      const holder = await retrieve(created.token);
      const email = `${created.token}@example.com`;
      await update(created.token, { control_person: { entity_token: holder.control_person?.entity_token, email, first_name: 'Thomas' } });
      expect(await retrieve(created.token)).toMatchObject({ email, control_person: { email, first_name: 'Thomas' } });
      const listed = await context.program.client.accountHolders.list({ email });
      expect(listed.data.map((listedHolder) => listedHolder.token)).toEqual([created.token]);
    });

    it('refuses bad values (400), another variant’s fields (400) and an entity the holder lacks (422), changing nothing', async () => {
      const created = await enroll(context.program.client, kybDelegatedBody());
      const holder = await retrieve(created.token);
      const entityToken = holder.business_entity?.entity_token as string;
      const cases: Array<[Body, number, string | RegExp]> = [
        [{ business_entity: { entity_token: entityToken, government_id: '123' } }, 400, 'business_entity.government_id: must be a nine-digit EIN, with or without hyphen (12-3456789)'],
        [{ business_entity: { entity_token: entityToken, phone_numbers: [] } }, 400, 'business_entity.phone_numbers: must NOT have fewer than 1 items'],
        [{ individual: { entity_token: entityToken, first_name: 'X' } }, 400, /^individual: does not apply to a KYB_DELEGATED account holder; it takes the KYB patch \(/],
        [{ legal_business_name: 'X' }, 400, /^legal_business_name: does not apply to a KYB_DELEGATED account holder; it takes the KYB patch \(.*\) or the legacy patch \(email, phone_number\), one or the other$/],
        [{ email: 'x@example.com' }, 422, /^email: account holder '[0-9a-f-]{36}' has no control person, whose e-mail and phone number are a business's$/],
        [{ control_person: { entity_token: crypto.randomUUID(), first_name: 'X' } }, 422, /^control_person\.entity_token: entity '[0-9a-f-]{36}' is not the control person of account holder/],
        [{ beneficial_owner_individuals: [{ entity_token: entityToken, first_name: 'X' }] }, 422, /^beneficial_owner_individuals\[0\]\.entity_token: entity '[0-9a-f-]{36}' is not a beneficial owner individual/],
      ];
      for (const [body, status, message] of cases) {
        const failure = await apiFailure(update(created.token, body));
        expect(failure.status, JSON.stringify(body)).toBe(status);
        if (typeof message === 'string') expect(failure.message).toBe(message);
        else expect(failure.message).toMatch(message);
        expect(await retrieve(created.token)).toEqual(holder);
      }
    });
  });
});
