import crypto from 'node:crypto';
import Lithic from 'lithic';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiFailure } from '../testing/api-errors.js';
import { enroll, enrollmentCounts, fullKybDelegatedBody, kybBody, kycBody, kycExemptBody, person, US_ADDRESS, withField, withoutEntityTokens } from '../testing/enrollment.js';
import { changedLastAt, describeWithDb, type TestProgram, useTestServer } from '../testing/harness.js';
import { bookTransfer, expectError, fund } from '../testing/money.js';
import { NOT_VISIBLE_TEXTS, notEmptyOrVisibleMessage, notVisibleMessage, VISIBLE_TEXT } from '../testing/visible-text.js';

type Body = Record<string, unknown>;

describeWithDb('account holders', () => {
  const context = useTestServer();

  describe('enrollment', () => {
    it('KYC_BASIC accepts an individual at once and opens its account with an ISSUING financial account', async () => {
      const body = kycBody();
      const created = await enroll(context.program.client, body);
      expect(created).toEqual({
        token: expect.stringMatching(/^[0-9a-f-]{36}$/),
        account_token: expect.stringMatching(/^[0-9a-f-]{36}$/),
        status: 'ACCEPTED',
        status_reasons: [],
        created: expect.any(String),
      });

      const holder = await context.program.client.accountHolders.retrieve(created.token);
      expect(holder).toEqual({
        token: created.token,
        account_token: created.account_token,
        created: created.created,
        user_type: 'INDIVIDUAL',
        status: 'ACCEPTED',
        status_reasons: [],
        verification_application: { created: created.created, status: 'ACCEPTED', status_reasons: [], updated: created.created },
        email: body.individual.email,
        phone_number: body.individual.phone_number,
        individual: {
          entity_token: expect.stringMatching(/^[0-9a-f-]{36}$/),
          first_name: 'Jane',
          last_name: 'Doe',
          email: body.individual.email,
          phone_number: body.individual.phone_number,
          dob: body.individual.dob,
          address: US_ADDRESS,
        },
      });

      const account = await context.program.client.accounts.retrieve(created.account_token);
      expect(account).toMatchObject({
        token: created.account_token,
        state: 'ACTIVE',
        account_holder: { token: created.token, email: body.individual.email, phone_number: body.individual.phone_number },
        verification_address: US_ADDRESS,
      });
      const funding = await context.program.client.financialAccounts.list({ account_token: created.account_token });
      expect(funding.data.map((account) => account.type)).toEqual(['ISSUING']);
    });

    it.each([
      ['000-00-0001', 'ADDRESS_VERIFICATION_FAILURE'],
      ['000-00-0002', 'NAME_VERIFICATION_FAILURE'],
      ['000-00-0003', 'DOB_VERIFICATION_FAILURE'],
      ['000-00-0004', 'ID_VERIFICATION_FAILURE'],
      ['000000005', 'OTHER_VERIFICATION_FAILURE'],
      ['000-00-0006', 'AGE_THRESHOLD_FAILURE'],
      ['000-00-0007', 'RISK_THRESHOLD_FAILURE'],
      ['000-00-0010', 'COMPLETE_VERIFICATION_FAILURE'],
    ])('KYC_BASIC rejects the sandbox government id %s with %s and closes the account', async (governmentId, reason) => {
      const created = await enroll(context.program.client, withField(kycBody(), 'individual.government_id', governmentId));
      expect(created).toMatchObject({ status: 'REJECTED', status_reasons: [reason] });
      const holder = await context.program.client.accountHolders.retrieve(created.token);
      expect(holder.verification_application).toMatchObject({ status: 'REJECTED', status_reasons: [reason] });
      expect((await context.program.client.accounts.retrieve(created.account_token)).state).toBe('CLOSED');
    });

    it('KYC_BYO is ACCEPTED and needs kyc_passed_timestamp', async () => {
      await expect(enroll(context.program.client, kycBody('KYC_BYO'))).resolves.toMatchObject({ status: 'ACCEPTED' });
      const error = await apiFailure(enroll(context.program.client, withField(kycBody('KYC_BYO'), 'kyc_passed_timestamp', undefined)));
      expect(error.status).toBe(400);
      expect(error.message).toBe('kyc_passed_timestamp: is required for workflow KYC_BYO');
    });

    it('KYB_BASIC waits for review, with every business field in the whole holder', async () => {
      const body = kybBody();
      const created = await enroll(context.program.client, body);
      expect(created).toMatchObject({ status: 'PENDING_REVIEW', status_reasons: [], required_documents: [] });

      const holder = await context.program.client.accountHolders.retrieve(created.token);
      expect(holder).toMatchObject({
        user_type: 'BUSINESS',
        status: 'PENDING_REVIEW',
        verification_application: { status: 'PENDING_REVIEW', status_reasons: [] },
        nature_of_business: body.nature_of_business,
        website_url: body.website_url,
        email: body.control_person.email,
        phone_number: body.control_person.phone_number,
        required_documents: [],
        business_entity: {
          legal_business_name: 'Busy Business, Inc.',
          government_id: '*****6789',
          phone_numbers: body.business_entity.phone_numbers,
          address: body.business_entity.address,
        },
        control_person: { first_name: 'Tom', email: body.control_person.email, dob: '1990-04-12' },
        beneficial_owner_individuals: [{ first_name: 'Tim', email: body.beneficial_owner_individuals[0]?.email }],
      });
      expect(holder.individual).toBeUndefined();
      const entityTokens = [holder.business_entity?.entity_token, holder.control_person?.entity_token, holder.beneficial_owner_individuals?.[0]?.entity_token];
      expect(new Set(entityTokens).size).toBe(3);
      expect(holder.control_person).not.toHaveProperty('government_id');
    });

    it('takes the most beneficial owners spec 8 allows (4 individuals, 4 deprecated entities) and lists each with its own entity token', async () => {
      const body = {
        ...kybBody(),
        beneficial_owner_individuals: [1, 2, 3, 4].map((n) => ({ ...person(`owner${n}`), first_name: `Owner${n}` })),
        beneficial_owner_entities: [1, 2, 3, 4].map((n) => ({ ...kybBody().business_entity, legal_business_name: `Holding ${n}` })),
      };
      const holder = await context.program.client.accountHolders.retrieve((await enroll(context.program.client, body)).token);
      expect(holder.beneficial_owner_individuals?.map((owner) => owner.first_name)).toEqual(['Owner1', 'Owner2', 'Owner3', 'Owner4']);
      expect(holder.beneficial_owner_entities?.map((owner) => owner.legal_business_name)).toEqual(['Holding 1', 'Holding 2', 'Holding 3', 'Holding 4']);
      const entityTokens = [...(holder.beneficial_owner_individuals ?? []), ...(holder.beneficial_owner_entities ?? [])].map((owner) => owner.entity_token);
      expect(new Set(entityTokens).size).toBe(8);
      const error = await apiFailure(enroll(context.program.client, { ...body, beneficial_owner_entities: [...body.beneficial_owner_entities, body.business_entity] }));
      expect(error).toEqual({ status: 400, message: 'beneficial_owner_entities: must NOT have more than 4 items' });
    });

    it('KYB_BYO is ACCEPTED and needs kyb_passed_timestamp; beneficial owners may be empty', async () => {
      await expect(enroll(context.program.client, withField(kybBody('KYB_BYO'), 'beneficial_owner_individuals', []))).resolves.toMatchObject({
        status: 'ACCEPTED',
      });
      const error = await apiFailure(enroll(context.program.client, withField(kybBody('KYB_BYO'), 'kyb_passed_timestamp', undefined)));
      expect(error.message).toBe('kyb_passed_timestamp: is required for workflow KYB_BYO');
    });

    it('KYC_EXEMPT is ACCEPTED, an individual without date of birth', async () => {
      const body = kycExemptBody();
      const created = await enroll(context.program.client, body);
      expect(created.status).toBe('ACCEPTED');
      const holder = await context.program.client.accountHolders.retrieve(created.token);
      expect(holder).toMatchObject({
        user_type: 'INDIVIDUAL',
        exemption_type: 'PREPAID_CARD_USER',
        individual: { first_name: 'Pat', last_name: 'Lee', email: body.email, phone_number: body.phone_number, address: US_ADDRESS },
      });
      // The SDK's type has a dob on every individual: a KYC-exempt one answers it empty.
      expect(holder.individual?.dob).toBe('');
    });

    it('links an authorized user to the account of an enrolled business', async () => {
      const business = await enroll(context.program.client, kybBody('KYB_BYO'));
      const body = { ...kycExemptBody('AUTHORIZED_USER'), business_account_token: business.account_token };
      const created = await enroll(context.program.client, body);
      const holder = await context.program.client.accountHolders.retrieve(created.token);
      expect(holder.business_account_token).toBe(business.account_token);
      const account = await context.program.client.accounts.retrieve(created.account_token);
      expect(account.account_holder).toMatchObject({ token: created.token, business_account_token: business.account_token });
    });

    it('refuses a business_account_token that is unknown (404), not a business (422), or for a prepaid user (400)', async () => {
      const unknown = await apiFailure(enroll(context.program.client, { ...kycExemptBody('AUTHORIZED_USER'), business_account_token: crypto.randomUUID() }));
      expect(unknown.status).toBe(404);
      expect(unknown.message).toContain('business_account_token');

      const individual = await enroll(context.program.client, kycBody());
      const notBusiness = await apiFailure(
        enroll(context.program.client, { ...kycExemptBody('AUTHORIZED_USER'), business_account_token: individual.account_token }),
      );
      expect(notBusiness.status).toBe(422);
      expect(notBusiness.message).toContain('business_account_token');

      const business = await enroll(context.program.client, kybBody('KYB_BYO'));
      const prepaid = await apiFailure(enroll(context.program.client, { ...kycExemptBody('PREPAID_CARD_USER'), business_account_token: business.account_token }));
      expect(prepaid.status).toBe(400);
      expect(prepaid.message).toBe('business_account_token: only applies to kyc_exemption_type AUTHORIZED_USER');
    });

    it('refuses the account of a business that is not enrolled: pending review, rejected, or whose account is CLOSED (422)', async () => {
      const client = context.program.client;
      const pending = await enroll(client, kybBody('KYB_BASIC'));
      const rejected = await enroll(client, kybBody('KYB_BASIC'));
      await client.accountHolders.simulateEnrollmentReview({
        account_holder_token: rejected.token,
        status: 'REJECTED',
        status_reasons: ['PRIMARY_BUSINESS_ENTITY_SOS_NOT_MATCHED'],
      });
      const closed = await enroll(client, kybBody('KYB_BYO'));
      await client.accounts.update(closed.account_token, { state: 'CLOSED' });
      const before = await enrollmentCounts(client);
      const cases = [
        [pending.account_token, /PENDING_REVIEW/],
        [rejected.account_token, /REJECTED/],
        [closed.account_token, /CLOSED/],
      ] as const;
      for (const [accountToken, reason] of cases) {
        const failure = await apiFailure(enroll(client, { ...kycExemptBody('AUTHORIZED_USER'), business_account_token: accountToken }));
        expect(failure.status).toBe(422);
        expect(failure.message).toMatch(/^business_account_token: /);
        expect(failure.message).toMatch(reason);
      }
      expect(await enrollmentCounts(client)).toEqual(before);

      await client.accountHolders.simulateEnrollmentReview({ account_holder_token: pending.token, status: 'ACCEPTED' });
      const user = await enroll(client, { ...kycExemptBody('AUTHORIZED_USER'), business_account_token: pending.account_token });
      expect(user.status).toBe('ACCEPTED');
    });

    it('keeps government ids encrypted at rest and out of every response', async () => {
      const body = withField(kybBody(), 'control_person.government_id', '987-65-4329');
      const created = await enroll(context.program.client, body);
      const retrieved = await context.server.request('GET', `/v1/account_holders/${created.token}`, { apiKey: context.program.apiKey });
      const listed = await context.server.request('GET', `/v1/account_holders?limit=100`, { apiKey: context.program.apiKey });
      for (const text of [await retrieved.text(), await listed.text()]) {
        expect(text).not.toContain('987654329');
        expect(text).not.toContain('987-65-4329');
        expect(text).not.toContain('123456789');
      }
      const row = await context.server.server.db.kysely
        .selectFrom('account_holders')
        .selectAll()
        .where('program_id', '=', context.program.programId)
        .where('token', '=', created.token)
        .executeTakeFirstOrThrow();
      expect(JSON.stringify(row)).not.toMatch(/987654329|987-65-4329|123456789|12-3456789/);
      const ids = JSON.parse(context.server.server.app.deps.secrets.decrypt(row.government_ids_encrypted as string)) as Record<string, string>;
      expect(Object.values(ids).sort()).toEqual(['123456789', '222334444', '987654329']);
    });

    it('answers a repeated Idempotency-Key with the first response and enrolls once', async () => {
      const before = await enrollmentCounts(context.program.client);
      const key = crypto.randomUUID();
      const body = kycBody();
      // The SDK does not send Idempotency-Key by itself: pass the header.
      const first = await context.program.client.accountHolders.create(body, { headers: { 'Idempotency-Key': key } });
      const second = await context.program.client.accountHolders.create(body, { headers: { 'Idempotency-Key': key } });
      expect(second).toEqual(first);
      const after = await enrollmentCounts(context.program.client);
      expect(after.holders).toBe(before.holders + 1);
    });
  });

  describe('validation: 400 naming the field, and nothing created', () => {
    const kyc = kycBody();
    const kyb = kybBody();
    const exempt = kycExemptBody();
    const fiveOwners = Array.from({ length: 5 }, () => kyb.beneficial_owner_individuals[0]);
    const delegated = fullKybDelegatedBody();
    /** Every name a body gives: the body and the name's dotted path. */
    const namesOf: Array<[object, string]> = [
      [kyc, 'individual.first_name'],
      [kyc, 'individual.last_name'],
      [kyb, 'business_entity.legal_business_name'],
      [kyb, 'control_person.first_name'],
      [kyb, 'beneficial_owner_individuals.0.last_name'],
      [delegated, 'business_entity.legal_business_name'],
      [delegated, 'business_entity.dba_business_name'],
      [delegated, 'business_entity.parent_company'],
      [exempt, 'first_name'],
      [exempt, 'last_name'],
    ];
    const cases: Array<[string, Body, string]> = [
      // SDK 0.119 leaves `workflow` optional in KYB_DELEGATED only: a body without it is that shape.
      ['no workflow', withField(kyc, 'workflow', undefined), 'workflow: is required for a KYC or KYC_EXEMPT body (a body without workflow is KYB_DELEGATED)'],
      ['no workflow, KYC_EXEMPT', withField(exempt, 'workflow', undefined), 'workflow: is required for a KYC or KYC_EXEMPT body (a body without workflow is KYB_DELEGATED)'],
      ['unknown workflow', withField(kyc, 'workflow', 'KYC_ADVANCED'), 'workflow: must be one of KYB_BASIC, KYB_BYO, KYB_DELEGATED, KYC_BASIC, KYC_BYO, KYC_EXEMPT'],
      ['missing individual', withField(kyc, 'individual', undefined), 'individual: is required'],
      ['missing tos_timestamp', withField(kyc, 'tos_timestamp', undefined), 'tos_timestamp: is required'],
      ['bad tos_timestamp', withField(kyc, 'tos_timestamp', 'yesterday'), 'tos_timestamp: must be a valid date-time'],
      ['missing individual phone', withField(kyc, 'individual.phone_number', undefined), 'individual.phone_number: is required'],
      ['missing first name', withField(kyc, 'individual.first_name', undefined), 'individual.first_name: is required'],
      ['empty last name', withField(kyc, 'individual.last_name', ''), 'individual.last_name: must NOT have fewer than 1 characters'],
      ['bad email', withField(kyc, 'individual.email', 'not-an-email'), 'individual.email: must be a valid email'],
      ['non-E.164 phone', withField(kyc, 'individual.phone_number', '555-0100'), 'individual.phone_number: must be an E.164 phone number: + and up to 15 digits, e.g. +15555555555'],
      ['short SSN', withField(kyc, 'individual.government_id', '123-45-678'), 'individual.government_id: must be a nine-digit SSN or ITIN, with or without hyphens (123-45-6789)'],
      ['SSN with letters', withField(kyc, 'individual.government_id', '12345678A'), 'individual.government_id: must be a nine-digit SSN or ITIN, with or without hyphens (123-45-6789)'],
      ['future dob', withField(kyc, 'individual.dob', '2999-01-01'), 'individual.dob: must not be in the future'],
      ['impossible dob', withField(kyc, 'individual.dob', '1990-02-30'), 'individual.dob: must be an RFC 3339 date such as 1990-04-12'],
      ['country not USA', withField(kyc, 'individual.address.country', 'CAN'), 'individual.address.country: must be "USA"'],
      ['lower-case country', withField(kyc, 'individual.address.country', 'usa'), 'individual.address.country: must be "USA"'],
      ['four-digit ZIP', withField(kyc, 'individual.address.postal_code', '1000'), 'individual.address.postal_code: must be a five-digit ZIP or a nine-digit ZIP+4 (12345 or 12345-6789)'],
      ['unknown state', withField(kyc, 'individual.address.state', 'ZZ'), 'individual.address.state: must be an uppercase two-letter US state code (ISO 3166-2, e.g. NY)'],
      ['lower-case state', withField(kyc, 'individual.address.state', 'ny'), 'individual.address.state: must be an uppercase two-letter US state code (ISO 3166-2, e.g. NY)'],
      ['PO box', withField(kyc, 'individual.address.address1', 'P.O. Box 123'), 'individual.address.address1: PO boxes are not accepted; give a street address (APO/FPO are accepted)'],
      ['UPS drop', withField(kyc, 'individual.address.address2', 'The UPS Store #42'), 'individual.address.address2: UPS and FedEx drop locations are not accepted; give a street address'],
      ['unknown address field', withField(kyc, 'individual.address.zip', '10001'), 'individual.address.zip: is not a recognised field'],
      ['KYB field on KYC', withField(kyc, 'nature_of_business', 'x'), 'nature_of_business: is not a recognised field'],
      ['missing business_entity', withField(kyb, 'business_entity', undefined), 'business_entity: is required'],
      ['business ZIP', withField(kyb, 'business_entity.address.postal_code', 'ABCDE'), 'business_entity.address.postal_code: must be a five-digit ZIP or a nine-digit ZIP+4 (12345 or 12345-6789)'],
      ['EIN', withField(kyb, 'business_entity.government_id', '123-45-6789'), 'business_entity.government_id: must be a nine-digit EIN, with or without hyphen (12-3456789)'],
      ['business phone', withField(kyb, 'business_entity.phone_numbers', ['+15555550101', '15555550101']), 'business_entity.phone_numbers[1]: must be an E.164 phone number: + and up to 15 digits, e.g. +15555555555'],
      ['no business phones', withField(kyb, 'business_entity.phone_numbers', []), 'business_entity.phone_numbers: must NOT have fewer than 1 items'],
      ['control person SSN', withField(kyb, 'control_person.government_id', 'x'), 'control_person.government_id: must be a nine-digit SSN or ITIN, with or without hyphens (123-45-6789)'],
      ['owner dob', withField(kyb, 'beneficial_owner_individuals.0.dob', '12/04/1990'), 'beneficial_owner_individuals[0].dob: must be an RFC 3339 date such as 1990-04-12'],
      ['owner state', withField(kyb, 'beneficial_owner_individuals.0.address.state', 'XX'), 'beneficial_owner_individuals[0].address.state: must be an uppercase two-letter US state code (ISO 3166-2, e.g. NY)'],
      ['five owners', withField(kyb, 'beneficial_owner_individuals', fiveOwners), 'beneficial_owner_individuals: must NOT have more than 4 items'],
      ['missing owners', withField(kyb, 'beneficial_owner_individuals', undefined), 'beneficial_owner_individuals: is required'],
      ['website', withField(kyb, 'website_url', 'not a url'), 'website_url: must be an http:// or https:// URL naming a host'],
      ...['javascript:alert(1)', 'mailto:owner@example.com', 'https://'].map((url): [string, Body, string] => [`website ${url}`, withField(kyb, 'website_url', url), 'website_url: must be an http:// or https:// URL naming a host']),
      ...NOT_VISIBLE_TEXTS.map((value): [string, Body, string] => [`nature_of_business ${JSON.stringify(value)}`, withField(kyb, 'nature_of_business', value), notVisibleMessage('nature_of_business')]),
      ['exemption type', withField(exempt, 'kyc_exemption_type', 'STUDENT'), 'kyc_exemption_type: must be one of AUTHORIZED_USER, PREPAID_CARD_USER'],
      ['exempt phone', withField(exempt, 'phone_number', '+0123'), 'phone_number: must be an E.164 phone number: + and up to 15 digits, e.g. +15555555555'],
      ['exempt PO box', withField(exempt, 'address.address1', 'PO Box 9'), 'address.address1: PO boxes are not accepted; give a street address (APO/FPO are accepted)'],
      ['exempt business token', withField(exempt, 'business_account_token', 'nope'), 'business_account_token: must be a valid uuid'],
      ['exempt dob', withField(exempt, 'dob', '1990-01-01'), 'dob: is not a recognised field'],
      ['NUL character', withField(kyc, 'individual.first_name', 'Ja\u0000ne'), 'individual.first_name: must not contain the NUL character (U+0000)'],
      ...namesOf.flatMap(([body, path]) => {
        const field = path.replace(/\.(\d+)\./g, '[$1].');
        return NOT_VISIBLE_TEXTS.map((value): [string, Body, string] => [`${field} ${JSON.stringify(value)}`, withField(body, path, value), notVisibleMessage(field)]);
      }),
      ...NOT_VISIBLE_TEXTS.flatMap((value): Array<[string, Body, string]> => [
        [`address1 ${JSON.stringify(value)}`, withField(kyc, 'individual.address.address1', value), notVisibleMessage('individual.address.address1')],
        [`city ${JSON.stringify(value)}`, withField(kyb, 'business_entity.address.city', value), notVisibleMessage('business_entity.address.city')],
        [`address2 ${JSON.stringify(value)}`, withField(exempt, 'address.address2', value), notEmptyOrVisibleMessage('address.address2')],
        ...([kyc, kyb, exempt, delegated] as Body[]).map((body): [string, Body, string] => [`${String(body.workflow ?? 'KYB_DELEGATED')} external_id ${JSON.stringify(value)}`, withField(body, 'external_id', value), notVisibleMessage('external_id')]),
      ]),
    ];

    it.each(cases)('%s', async (_name, body, message) => {
      const before = await enrollmentCounts(context.program.client);
      const error = await apiFailure(enroll(context.program.client, body));
      expect(error.status).toBe(400);
      expect(error.message).toBe(message);
      expect(await enrollmentCounts(context.program.client)).toEqual(before);
    });

    it('accepts the forms the rules allow: ZIP+4, SSN without hyphens, APO addresses, date-time dob', async () => {
      let body = withField(kycBody(), 'individual.address', { address1: 'PSC 1234, Box 5678', city: 'APO', country: 'USA', postal_code: '09204-1234', state: 'AE' });
      body = withField(body, 'individual.government_id', '123456789');
      body = withField(body, 'individual.dob', '1991-03-08T08:00:00Z');
      await expect(enroll(context.program.client, body)).resolves.toMatchObject({ status: 'ACCEPTED' });
    });

    it('takes names with spaces inside and around them and letters beyond ASCII, as given', async () => {
      const { client } = context.program;
      const individual = await client.accountHolders.retrieve((await enroll(client, withField(kycBody(), 'individual.last_name', VISIBLE_TEXT))).token);
      expect(individual.individual?.last_name).toBe(VISIBLE_TEXT);
      const business = await client.accountHolders.retrieve((await enroll(client, withField(fullKybDelegatedBody(), 'business_entity.dba_business_name', VISIBLE_TEXT))).token);
      expect(business.business_entity?.dba_business_name).toBe(VISIBLE_TEXT);
    });

    it('answers a date of birth given as a date-time as the RFC 3339 date the SDK types it as: the day as written, whatever the offset', async () => {
      let body = withField(kybBody('KYB_BYO'), 'control_person.dob', '1980-06-30T23:30:00-05:00');
      body = withField(body, 'beneficial_owner_individuals', [{ ...person('owner'), dob: '1975-01-01T00:00:00.000Z' }]);
      const business = await context.program.client.accountHolders.retrieve((await enroll(context.program.client, body)).token);
      expect(business.control_person?.dob).toBe('1980-06-30');
      expect(business.beneficial_owner_individuals?.map((owner) => owner.dob)).toEqual(['1975-01-01']);
      const individual = await enroll(context.program.client, withField(kycBody(), 'individual.dob', '1991-03-08T08:00:00+09:00'));
      expect((await context.program.client.accountHolders.retrieve(individual.token)).individual?.dob).toBe('1991-03-08');
      const listed = (await context.program.client.accountHolders.list({ email: (business.control_person as { email: string }).email })).data;
      expect(listed.map((holder) => holder.control_person?.dob)).toEqual(['1980-06-30']);
    });

    it('refuses a body that is not JSON or not an object', async () => {
      for (const body of ['{', '[]', '"x"']) {
        const response = await context.server.request('POST', '/v1/account_holders', { apiKey: context.program.apiKey, body });
        expect(response.status, body).toBe(400);
      }
    });
  });

  describe('enrollment review simulation', () => {
    async function pendingBusiness() {
      return enroll(context.program.client, kybBody());
    }
    const pendingBusinessOf = (client: Lithic) => enroll(client, kybBody());

    it('ACCEPTED moves a pending holder to ACCEPTED and answers the whole holder', async () => {
      const created = await pendingBusiness();
      const reviewed = await context.program.client.accountHolders.simulateEnrollmentReview({ account_holder_token: created.token, status: 'ACCEPTED', status_reasons: [] });
      expect(reviewed).toMatchObject({
        token: created.token,
        account_token: created.account_token,
        user_type: 'BUSINESS',
        status: 'ACCEPTED',
        status_reasons: [],
        verification_application: { status: 'ACCEPTED', status_reasons: [] },
        business_entity: { legal_business_name: 'Busy Business, Inc.' },
        control_person: { first_name: 'Tom' },
        beneficial_owner_individuals: [{ first_name: 'Tim' }],
        nature_of_business: 'Software for restaurants',
      });
      expect(withoutEntityTokens(await context.program.client.accountHolders.retrieve(created.token))).toEqual(reviewed);
      expect((await context.program.client.accounts.retrieve(created.account_token)).state).toBe('ACTIVE');
    });

    it('REJECTED records the reasons, stamps the program clock, and closes the account', async () => {
      const clocked = await context.server.newProgram('review clock');
      const created = await enroll(clocked.client, kybBody());
      const later = new Date(Date.now() + 10 * 86_400_000).toISOString();
      await context.server.request('POST', '/v1/simulate/clock', { apiKey: clocked.apiKey, body: { now: later } });
      const reasons = [
        'PRIMARY_BUSINESS_ENTITY_SOS_NOT_MATCHED',
        'CONTROL_PERSON_DOB_VERIFICATION_FAILURE',
        'BENEFICIAL_OWNER_INDIVIDUAL_ID_VERIFICATION_FAILURE',
      ] as const;
      const reviewed = await clocked.client.accountHolders.simulateEnrollmentReview({
        account_holder_token: created.token,
        status: 'REJECTED',
        status_reasons: [...reasons],
      });
      // The beneficial-owner reason is simulation input only (spec 2.3): taken, not recorded.
      const recorded = reasons.slice(0, 2);
      expect(reviewed).toMatchObject({ status: 'REJECTED', status_reasons: recorded, verification_application: { status: 'REJECTED', status_reasons: recorded } });
      expect(await clocked.client.accountHolders.retrieve(created.token)).toMatchObject({ status_reasons: recorded, verification_application: { status_reasons: recorded } });
      const application = reviewed.verification_application as { created: string; updated: string };
      expect(application.created).toBe(created.created);
      expect(Date.parse(application.updated)).toBeGreaterThanOrEqual(Date.parse(later));
      expect((await clocked.client.accounts.retrieve(created.account_token)).state).toBe('CLOSED');
    });

    it('never dates the decision (nor its event) before the holder’s last change (one stamped by a request that saw a moved clock)', async () => {
      const { client, programId } = context.program;
      const created = await pendingBusiness();
      const laterMs = Date.parse(created.created as string) + 3_600_000;
      // As if a PATCH at a clock moved an hour ahead had committed first.
      await changedLastAt(context.server.server.db, 'account_holders', programId, created.token, laterMs);
      const reviewed = await client.accountHolders.simulateEnrollmentReview({ account_holder_token: created.token, status: 'ACCEPTED' });
      expect(Date.parse(reviewed.verification_application?.updated as string)).toBe(laterMs);
      const events = (await client.events.list({ event_types: ['account_holder.verification'], page_size: 100, with_content: true })).data;
      const event = events.find((item) => (item.payload as { token?: string }).token === created.token);
      expect(Date.parse(event?.created as string)).toBe(laterMs);
      expect(event?.payload).toMatchObject({ status: 'ACCEPTED', created: reviewed.verification_application?.updated });
    });

    it('a REJECTED holder\'s ISSUING financial account takes no money in: CLOSED with its account, unless money is already on it', async () => {
      const rejecting = await context.server.newProgram('rejected money');
      const { client } = rejecting;
      const issuingOf = async (accountToken: string) => (await client.financialAccounts.list({ account_token: accountToken } as never)).data.find((account) => account.type === 'ISSUING') as Lithic.FinancialAccount;
      const source = (await client.financialAccounts.create({ nickname: 'source', type: 'OPERATING' })).token;
      await fund(client, source, 1_000);

      // Rejected at enrollment: the account and its ISSUING account are CLOSED from the start.
      const atOnce = await enroll(client, withField(kycBody(), 'individual.government_id', '000-00-0001'));
      const closedAtOnce = await issuingOf(atOnce.account_token);
      expect(closedAtOnce.status).toBe('CLOSED');
      expect(await expectError(bookTransfer(client, source, closedAtOnce.token, 100), 422)).toContain('CLOSED');

      // Rejected by review: an empty ISSUING account closes with its account, announced.
      const reviewed = await enroll(client, kybBody());
      const issuing = await issuingOf(reviewed.account_token);
      expect(issuing.status).toBe('OPEN');
      await client.accountHolders.simulateEnrollmentReview({ account_holder_token: reviewed.token, status: 'REJECTED', status_reasons: ['PRIMARY_BUSINESS_ENTITY_SOS_NOT_MATCHED'] });
      expect(await client.financialAccounts.retrieve(issuing.token)).toMatchObject({ status: 'CLOSED', substatus: null });
      const announced = await client.events.list({ event_types: ['financial_account.updated'], with_content: true });
      expect(announced.data.map((event) => [event.payload['token'], event.payload['status']])).toEqual([[issuing.token, 'CLOSED']]);

      // Its account closed by the client before the review (which leaves the ISSUING account open): the review still closes it.
      const closedFirst = await enroll(client, kybBody());
      await client.accounts.update(closedFirst.account_token, { state: 'CLOSED' });
      const leftOpen = await issuingOf(closedFirst.account_token);
      expect(leftOpen.status).toBe('OPEN');
      await client.accountHolders.simulateEnrollmentReview({ account_holder_token: closedFirst.token, status: 'REJECTED', status_reasons: ['PRIMARY_BUSINESS_ENTITY_SOS_NOT_MATCHED'] });
      expect((await client.financialAccounts.retrieve(leftOpen.token)).status).toBe('CLOSED');
      expect(await expectError(bookTransfer(client, source, leftOpen.token, 100), 422)).toContain('CLOSED');

      // Money already on it: it stays OPEN, so the money can be moved out.
      const funded = await enroll(client, kybBody());
      const holding = await issuingOf(funded.account_token);
      await bookTransfer(client, source, holding.token, 100);
      await client.accountHolders.simulateEnrollmentReview({ account_holder_token: funded.token, status: 'REJECTED', status_reasons: ['PRIMARY_BUSINESS_ENTITY_SOS_NOT_MATCHED'] });
      expect((await client.financialAccounts.retrieve(holding.token)).status).toBe('OPEN');
      expect((await bookTransfer(client, holding.token, source, 100)).status).toBe('SETTLED');
    });

    it('a REJECTED holder\'s OPERATING financial accounts, opened for its account while it was pending, take no money in either: CLOSED when empty, announced', async () => {
      const { client } = await context.server.newProgram('rejected operating');
      const source = (await client.financialAccounts.create({ nickname: 'source', type: 'OPERATING' })).token;
      await fund(client, source, 1_000);
      const pending = await pendingBusinessOf(client);
      const opened = (nickname: string) => client.financialAccounts.create({ nickname, type: 'OPERATING', account_token: pending.account_token } as never);
      const [empty, holding] = [await opened('empty'), await opened('holding')];
      await bookTransfer(client, source, holding.token, 100);

      await client.accountHolders.simulateEnrollmentReview({ account_holder_token: pending.token, status: 'REJECTED', status_reasons: ['PRIMARY_BUSINESS_ENTITY_CMRA_FAILURE'] });
      expect(await client.financialAccounts.retrieve(empty.token)).toMatchObject({ status: 'CLOSED', substatus: null });
      expect(await expectError(bookTransfer(client, source, empty.token, 100), 422)).toContain('CLOSED');
      const announced = await client.events.list({ event_types: ['financial_account.updated'], with_content: true });
      expect(announced.data.map((event) => event.payload['token'])).toContain(empty.token);
      // Money already on it: it stays OPEN, so the money can be moved out.
      expect((await client.financialAccounts.retrieve(holding.token)).status).toBe('OPEN');
      expect((await bookTransfer(client, holding.token, source, 100)).status).toBe('SETTLED');
      // ACCEPTED leaves them as they are.
      const accepted = await pendingBusinessOf(client);
      const kept = await client.financialAccounts.create({ nickname: 'kept', type: 'OPERATING', account_token: accepted.account_token } as never);
      await client.accountHolders.simulateEnrollmentReview({ account_holder_token: accepted.token, status: 'ACCEPTED' });
      expect((await client.financialAccounts.retrieve(kept.token)).status).toBe('OPEN');
    });

    it('REJECTED takes all 17 simulation reasons of spec 4.3 at once and records all but the 4 input-only ones; ACCEPTED is the default status', async () => {
      const reasons = [
        ...['ID_VERIFICATION_FAILURE', 'ADDRESS_VERIFICATION_FAILURE', 'NAME_VERIFICATION_FAILURE', 'BUSINESS_OFFICERS_NOT_MATCHED', 'SOS_FILING_INACTIVE', 'SOS_NOT_MATCHED', 'CMRA_FAILURE', 'WATCHLIST_FAILURE', 'REGISTERED_AGENT_FAILURE'].map(
          (r) => `PRIMARY_BUSINESS_ENTITY_${r}`,
        ),
        ...['BLOCKLIST_ALERT_FAILURE', 'ID_VERIFICATION_FAILURE', 'DOB_VERIFICATION_FAILURE', 'NAME_VERIFICATION_FAILURE'].map((r) => `CONTROL_PERSON_${r}`),
        ...['DOB_VERIFICATION_FAILURE', 'BLOCKLIST_ALERT_FAILURE', 'ID_VERIFICATION_FAILURE', 'NAME_VERIFICATION_FAILURE'].map((r) => `BENEFICIAL_OWNER_INDIVIDUAL_${r}`),
      ] as Lithic.AccountHolderSimulateEnrollmentReviewParams['status_reasons'] & string[];
      expect(reasons).toHaveLength(17);
      const created = await pendingBusiness();
      const reviewed = await context.program.client.accountHolders.simulateEnrollmentReview({
        account_holder_token: created.token,
        status: 'REJECTED',
        status_reasons: [...reasons],
      });
      const recorded = reasons.filter((reason) => !reason.startsWith('BENEFICIAL_OWNER_INDIVIDUAL_'));
      expect(recorded).toHaveLength(13);
      expect(reviewed).toMatchObject({ status: 'REJECTED', status_reasons: recorded, verification_application: { status: 'REJECTED', status_reasons: recorded } });

      // Only input-only reasons: REJECTED all the same, with no reason a holder can carry.
      const ownersOnly = await pendingBusiness();
      const rejected = await context.program.client.accountHolders.simulateEnrollmentReview({
        account_holder_token: ownersOnly.token,
        status: 'REJECTED',
        status_reasons: ['BENEFICIAL_OWNER_INDIVIDUAL_DOB_VERIFICATION_FAILURE'],
      });
      expect(rejected).toMatchObject({ status: 'REJECTED', status_reasons: [], verification_application: { status: 'REJECTED', status_reasons: [] } });

      const defaulted = await pendingBusiness();
      const accepted = await context.program.client.accountHolders.simulateEnrollmentReview({ account_holder_token: defaulted.token });
      expect(accepted).toMatchObject({ status: 'ACCEPTED', status_reasons: [], verification_application: { status: 'ACCEPTED', status_reasons: [] } });

      // Reasons are "only required for a REJECTED status" (SDK): ACCEPTED, given or defaulted, takes them and records none.
      for (const body of [{ status: 'ACCEPTED' as const }, {}]) {
        const withReasons = await pendingBusiness();
        const reviewedWithReasons = await context.program.client.accountHolders.simulateEnrollmentReview({ ...body, account_holder_token: withReasons.token, status_reasons: ['CONTROL_PERSON_ID_VERIFICATION_FAILURE'] });
        expect(reviewedWithReasons).toMatchObject({ status: 'ACCEPTED', status_reasons: [], verification_application: { status: 'ACCEPTED', status_reasons: [] } });
      }
    });

    it.each([
      [{ status: 'ACCEPTED' }, 'account_holder_token: is required'],
      [{ status: 'REJECTED' }, 'status_reasons: at least one reason is required when status is REJECTED'],
      [{ status: 'REJECTED', status_reasons: [] }, 'status_reasons: at least one reason is required when status is REJECTED'],
      [{ status: 'ACCEPTED', status_reasons: ['ADDRESS_VERIFICATION_FAILURE'] }, 'status_reasons[0]: must be one of'],
      [{ status: 'REJECTED', status_reasons: ['ADDRESS_VERIFICATION_FAILURE'] }, 'status_reasons[0]: must be one of'],
      [{ status: 'PENDING_REVIEW' }, 'status: must be one of ACCEPTED, REJECTED'],
      [{ status: 'ACCEPTED', account_holder_token: 'nope' }, 'account_holder_token: must be a valid uuid'],
      [{ status: 'ACCEPTED', colour: 'red' }, 'colour: is not a recognised field'],
    ])('refuses %j with 400 and leaves the holder pending', async (body, message) => {
      const created = await pendingBusiness();
      const withToken = 'account_holder_token' in body || message.startsWith('account_holder_token: is required') ? body : { ...body, account_holder_token: created.token };
      const error = await apiFailure(context.program.client.accountHolders.simulateEnrollmentReview(withToken as never));
      expect(error.status).toBe(400);
      expect(error.message).toContain(message);
      expect((await context.program.client.accountHolders.retrieve(created.token)).status).toBe('PENDING_REVIEW');
    });

    it('answers 404 for an unknown holder and 422 for a holder that is not pending review', async () => {
      const unknown = await apiFailure(context.program.client.accountHolders.simulateEnrollmentReview({ account_holder_token: crypto.randomUUID(), status: 'ACCEPTED' }));
      expect(unknown.status).toBe(404);

      const created = await pendingBusiness();
      await context.program.client.accountHolders.simulateEnrollmentReview({ account_holder_token: created.token, status: 'ACCEPTED' });
      const again = await apiFailure(
        context.program.client.accountHolders.simulateEnrollmentReview({ account_holder_token: created.token, status: 'REJECTED', status_reasons: ['CONTROL_PERSON_BLOCKLIST_ALERT_FAILURE'] }),
      );
      expect(again.status).toBe(422);
      expect(again.message).toContain('ACCEPTED');
      expect((await context.program.client.accountHolders.retrieve(created.token)).status).toBe('ACCEPTED');

      const individual = await enroll(context.program.client, kycBody());
      const notReviewable = await apiFailure(context.program.client.accountHolders.simulateEnrollmentReview({ account_holder_token: individual.token, status: 'ACCEPTED' }));
      expect(notReviewable.status).toBe(422);
    });

    it.each([
      ['KYB_BYO', kybBody('KYB_BYO')],
      ['KYB_DELEGATED', fullKybDelegatedBody()],
      ['KYC_BASIC accepted', kycBody()],
      ['KYC_BASIC rejected', withField(kycBody(), 'individual.government_id', '000-00-0004')],
      ['KYC_BYO', kycBody('KYC_BYO')],
      ['KYC_EXEMPT', kycExemptBody()],
    ])('%s was decided at enrollment: neither review decides it again (422), the holder, its account and its events stay as they were', async (_name, body) => {
      const { client } = await context.server.newProgram('not reviewable');
      const created = await enroll(client, body);
      const [holder, account, events] = [await client.accountHolders.retrieve(created.token), await client.accounts.retrieve(created.account_token), await client.events.list({ page_size: 100 })];
      const reviews: Array<Omit<Lithic.AccountHolderSimulateEnrollmentReviewParams, 'account_holder_token'>> = [
        { status: 'ACCEPTED' },
        { status: 'REJECTED', status_reasons: ['CONTROL_PERSON_ID_VERIFICATION_FAILURE'] },
      ];
      for (const review of reviews) {
        const refused = await apiFailure(client.accountHolders.simulateEnrollmentReview({ account_holder_token: created.token, ...review }));
        expect(refused.status).toBe(422);
        expect(refused.message).toContain(`is ${holder.status}, not pending review`);
      }
      expect(await client.accountHolders.retrieve(created.token)).toEqual(holder);
      expect(await client.accounts.retrieve(created.account_token)).toEqual(account);
      expect((await client.events.list({ page_size: 100 })).data).toEqual(events.data);
    });

    it('decides a holder once under concurrent reviews', async () => {
      const created = await pendingBusiness();
      const outcomes = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) =>
          context.program.client.accountHolders.simulateEnrollmentReview(
            i % 2 === 0
              ? { account_holder_token: created.token, status: 'ACCEPTED' }
              : { account_holder_token: created.token, status: 'REJECTED', status_reasons: ['PRIMARY_BUSINESS_ENTITY_CMRA_FAILURE'] },
          ),
        ),
      );
      const fulfilled = outcomes.filter((outcome) => outcome.status === 'fulfilled');
      expect(fulfilled).toHaveLength(1);
      for (const outcome of outcomes) if (outcome.status === 'rejected') expect((outcome.reason as { status: number }).status).toBe(422);
      const decided = (fulfilled[0] as PromiseFulfilledResult<{ status?: string }>).value.status;
      expect((await context.program.client.accountHolders.retrieve(created.token)).status).toBe(decided);
    });

    it.each(['ACCEPTED', 'REJECTED'] as const)('a PATCH racing a %s review: one comes first and the other answers the holder as it left it; a REJECTED holder refuses the later PATCH (422)', async (decision) => {
      const { client } = await context.server.newProgram(`patch racing ${decision}`);
      for (let round = 0; round < 6; round++) {
        const created = await enroll(client, kybBody());
        const business = (await client.accountHolders.retrieve(created.token)).business_entity as { entity_token: string; legal_business_name: string };
        const renamed = `Renamed ${round}`;
        const [patch, review] = await Promise.allSettled([
          client.accountHolders.update(created.token, { business_entity: { entity_token: business.entity_token, legal_business_name: renamed } }),
          client.accountHolders.simulateEnrollmentReview(
            decision === 'ACCEPTED' ? { account_holder_token: created.token, status: 'ACCEPTED' } : { account_holder_token: created.token, status: 'REJECTED', status_reasons: ['CONTROL_PERSON_ID_VERIFICATION_FAILURE'] },
          ),
        ]);
        expect(review.status).toBe('fulfilled');
        const reviewed = (review as PromiseFulfilledResult<Lithic.AccountHolderSimulateEnrollmentReviewResponse>).value;
        const holder = await client.accountHolders.retrieve(created.token);
        expect([reviewed.status, holder.status]).toEqual([decision, decision]);
        expect((await client.accounts.retrieve(created.account_token)).state).toBe(decision === 'REJECTED' ? 'CLOSED' : 'ACTIVE');
        if (patch.status === 'rejected') {
          // The review came first and its holder is final: the PATCH changed nothing.
          expect(decision).toBe('REJECTED');
          expect((patch.reason as { status: number }).status).toBe(422);
          expect(reviewed.business_entity?.legal_business_name).toBe(business.legal_business_name);
          expect(holder.business_entity?.legal_business_name).toBe(business.legal_business_name);
          continue;
        }
        const patched = patch.value as Lithic.AccountHolderUpdateResponse.KYBKYCPatchResponse;
        expect(holder.business_entity?.legal_business_name).toBe(renamed);
        // Whichever committed second saw the other: a PATCH first is pending and the review shows its name; a review first shows the old name and the PATCH its decision.
        if ((patched.status as string) === 'PENDING_REVIEW') expect(reviewed.business_entity?.legal_business_name).toBe(renamed);
        else expect([patched.status, reviewed.business_entity?.legal_business_name]).toEqual([decision, business.legal_business_name]);
      }
    });

    it('a repeated Idempotency-Key answers the first decision and records one verification event; the key with another body is a 400 that decides nothing', async () => {
      const { client } = await context.server.newProgram('review idempotency');
      const created = await enroll(client, kybBody());
      const key = crypto.randomUUID();
      const rejecting: Lithic.AccountHolderSimulateEnrollmentReviewParams = { account_holder_token: created.token, status: 'REJECTED', status_reasons: ['CONTROL_PERSON_ID_VERIFICATION_FAILURE'] };
      const first = await client.accountHolders.simulateEnrollmentReview(rejecting, { headers: { 'Idempotency-Key': key } });
      expect(first.status).toBe('REJECTED');
      expect(await client.accountHolders.simulateEnrollmentReview(rejecting, { headers: { 'Idempotency-Key': key } })).toEqual(first);
      const otherBody = await apiFailure(client.accountHolders.simulateEnrollmentReview({ account_holder_token: created.token, status: 'ACCEPTED' }, { headers: { 'Idempotency-Key': key } }));
      expect([otherBody.status, otherBody.message]).toEqual([400, 'Idempotency-Key: this key was already used with a different request']);
      expect(withoutEntityTokens(await client.accountHolders.retrieve(created.token))).toEqual(first);
      const verifications = (await client.events.list({ event_types: ['account_holder.verification'], page_size: 100, with_content: true })).data;
      expect(verifications.filter((event) => (event.payload as { token?: string }).token === created.token)).toHaveLength(1);
    });
  });

  describe('listing', () => {
    let lister: TestProgram;
    const made: Record<string, { token: string; email?: string }> = {};

    beforeAll(async () => {
      lister = await context.server.newProgram('lister');
      const jane = kycBody();
      const business = withField(kybBody('KYB_BYO'), 'business_entity.legal_business_name', 'Acme 100% Widgets_Co');
      const exempt = { ...kycExemptBody(), external_id: 'ext-42', phone_number: '+15555559999' };
      made.jane = { token: (await enroll(lister.client, jane)).token, email: jane.individual.email };
      made.business = { token: (await enroll(lister.client, business)).token };
      made.exempt = { token: (await enroll(lister.client, exempt)).token };
    });

    async function tokens(query: Record<string, unknown>): Promise<string[]> {
      const page = await lister.client.accountHolders.list(query as never);
      return page.data.map((holder) => holder.token);
    }

    it('lists every holder newest first', async () => {
      expect(await tokens({})).toEqual([made.exempt?.token, made.business?.token, made.jane?.token]);
    });

    it('filters by email (exact, case-insensitive), phone, external_id, names and business name', async () => {
      expect(await tokens({ email: made.jane?.email?.toUpperCase() })).toEqual([made.jane?.token]);
      expect(await tokens({ email: made.jane?.email?.slice(1) })).toEqual([]);
      expect(await tokens({ phone_number: '+15555559999' })).toEqual([made.exempt?.token]);
      expect(await tokens({ external_id: 'ext-42' })).toEqual([made.exempt?.token]);
      expect(await tokens({ first_name: 'AN' })).toEqual([made.jane?.token]);
      expect(await tokens({ last_name: 'le' })).toEqual([made.exempt?.token]);
      expect(await tokens({ legal_business_name: '100% widgets_' })).toEqual([made.business?.token]);
      expect(await tokens({ legal_business_name: '_' })).toEqual([made.business?.token]);
      expect(await tokens({ legal_business_name: '%' })).toEqual([made.business?.token]);
      expect(await tokens({ first_name: 'Busy' })).toEqual([]);
    });

    it('matches names with letters beyond ASCII whatever their case', async () => {
      const program = await context.server.newProgram('accented names');
      const elodie = await enroll(program.client, { ...kycExemptBody(), first_name: 'ÉLODIE', last_name: 'Müller' });
      const business = await enroll(program.client, withField(kybBody('KYB_BYO'), 'business_entity.legal_business_name', 'Société Générale'));
      const names = (query: Record<string, unknown>) => program.client.accountHolders.list(query as never).then((page) => page.data.map((holder) => holder.token));
      expect(await names({ first_name: 'ÉLODIE' })).toEqual([elodie.token]);
      expect(await names({ first_name: 'élodie' })).toEqual([elodie.token]);
      expect(await names({ last_name: 'MÜLLER' })).toEqual([elodie.token]);
      expect(await names({ legal_business_name: 'SOCIÉTÉ' })).toEqual([business.token]);
    });

    it('filters by creation time and pages with limit and cursors', async () => {
      const all = await tokens({});
      const first = await lister.client.accountHolders.retrieve(all[2] as string);
      expect(await tokens({ begin: first.created })).not.toContain(first.token);
      expect(await tokens({ end: new Date(Date.parse(first.created) + 1).toISOString() })).toEqual([first.token]);
      const page = await lister.client.accountHolders.list({ limit: 2 });
      expect(page.data.map((holder) => holder.token)).toEqual(all.slice(0, 2));
      expect(page.has_more).toBe(true);
      const next = await lister.client.accountHolders.list({ limit: 2, starting_after: all[1] });
      expect(next.data.map((holder) => holder.token)).toEqual(all.slice(2));
      expect(next.has_more).toBe(false);
      expect(await tokens({ ending_before: all[2], limit: 1 })).toEqual([all[1]]);
    });

    it('refuses bad list parameters with 400', async () => {
      for (const query of ['limit=0', 'limit=101', 'page_size=0', 'page_size=5&limit=5', 'begin=yesterday', `starting_after=${crypto.randomUUID()}`]) {
        const response = await context.server.request('GET', `/v1/account_holders?${query}`, { apiKey: lister.apiKey });
        expect(response.status, query).toBe(400);
      }
    });
  });

  it('keeps programs apart', async () => {
    const mine = await context.server.newProgram('mine');
    const theirs = await context.server.newProgram('theirs');
    const created = await enroll(mine.client, kybBody());
    await expect(theirs.client.accountHolders.retrieve(created.token)).rejects.toBeInstanceOf(Lithic.NotFoundError);
    await expect(theirs.client.accounts.retrieve(created.account_token)).rejects.toBeInstanceOf(Lithic.NotFoundError);
    await expect(theirs.client.accountHolders.simulateEnrollmentReview({ account_holder_token: created.token, status: 'ACCEPTED' })).rejects.toBeInstanceOf(
      Lithic.NotFoundError,
    );
    expect((await theirs.client.accountHolders.list()).data).toEqual([]);
    // Every filter is scoped to the caller's program, whatever values of another program's holder it names.
    const mineListed = await mine.client.accountHolders.list({ legal_business_name: 'Busy Business' });
    expect(mineListed.data.map((holder) => holder.token)).toContain(created.token);
    const full = await mine.client.accountHolders.retrieve(created.token);
    expect((await mine.client.accountHolders.list({ email: full.control_person?.email as string })).data.map((holder) => holder.token)).toEqual([created.token]);
    for (const filter of [{ legal_business_name: 'Busy Business' }, { email: full.control_person?.email as string }, { external_id: full.external_id ?? 'none' }, { first_name: 'Tom' }]) {
      expect((await theirs.client.accountHolders.list(filter)).data, JSON.stringify(filter)).toEqual([]);
    }
    await expect(
      enroll(theirs.client, { ...kycExemptBody('AUTHORIZED_USER'), business_account_token: created.account_token }),
    ).rejects.toBeInstanceOf(Lithic.NotFoundError);
    expect((await mine.client.accountHolders.retrieve(created.token)).status).toBe('PENDING_REVIEW');
  });
});

describeWithDb('account holder updates (PATCH /v1/account_holders/{token})', () => {
  const context = useTestServer();
  type Holder = Lithic.AccountHolder;
  type UpdateBody = Lithic.AccountHolderUpdateParams;

  const update = (token: string, body: Body, client = context.program.client) =>
    client.accountHolders.update(token, body as UpdateBody) as Promise<Lithic.AccountHolderUpdateResponse.KYBKYCPatchResponse & Lithic.AccountHolderUpdateResponse.PatchResponse>;
  const retrieve = (token: string) => context.program.client.accountHolders.retrieve(token);

  /** Moves the program's clock a day ahead and returns the instant, so `updated` stamps are recognisable. */
  async function clockMovedAhead(program: TestProgram): Promise<string> {
    const current = (await (await context.server.request('GET', '/v1/simulate/clock', { apiKey: program.apiKey })).json()) as { now: string };
    const later = new Date(Date.parse(current.now) + 86_400_000).toISOString();
    await context.server.request('POST', '/v1/simulate/clock', { apiKey: program.apiKey, body: { now: later } });
    return later;
  }

  function expectStampedAt(stamp: string | undefined, instant: string) {
    const ms = Date.parse(stamp ?? '');
    expect(ms).toBeGreaterThanOrEqual(Date.parse(instant));
    expect(ms).toBeLessThan(Date.parse(instant) + 60_000);
  }

  async function governmentIds(token: string): Promise<Record<string, string>> {
    const row = await context.server.server.db.kysely
      .selectFrom('account_holders')
      .select('government_ids_encrypted')
      .where('program_id', '=', context.program.programId)
      .where('token', '=', token)
      .executeTakeFirstOrThrow();
    return JSON.parse(context.server.server.app.deps.secrets.decrypt(row.government_ids_encrypted as string)) as Record<string, string>;
  }

  it('KYC patch: changes only the given fields of the individual, merges its address, keeps the status, answers the whole holder', async () => {
    const program = await context.server.newProgram('kyc update');
    const created = await enroll(program.client, kycBody());
    const before = await program.client.accountHolders.retrieve(created.token);
    const individual = before.individual as NonNullable<Holder['individual']>;
    const later = await clockMovedAhead(program);

    const updated = await update(
      created.token,
      {
        individual: { entity_token: individual.entity_token, first_name: 'Janet', phone_number: '+15555550199', address: { postal_code: '10002', address2: 'Apt 4' } },
        external_id: 'kyc-ext-1',
      },
      program.client,
    );
    const expected = {
      ...before,
      external_id: 'kyc-ext-1',
      phone_number: '+15555550199',
      individual: { ...individual, first_name: 'Janet', phone_number: '+15555550199', address: { ...US_ADDRESS, postal_code: '10002', address2: 'Apt 4' } },
      verification_application: { ...before.verification_application, updated: expect.any(String) },
    };
    expect(updated).toEqual(withoutEntityTokens(expected));
    expectStampedAt(updated.verification_application?.updated, later);
    expect(withoutEntityTokens(await program.client.accountHolders.retrieve(created.token))).toEqual(updated);
    expect(updated.status).toBe('ACCEPTED');

    const account = await program.client.accounts.retrieve(created.account_token);
    expect(account.account_holder?.phone_number).toBe('+15555550199');
    expect(account.verification_address).toEqual({ ...US_ADDRESS, postal_code: '10002', address2: 'Apt 4' });
  });

  it('KYC patch: a new government id is stored encrypted, never shown, and runs no verification', async () => {
    const created = await enroll(context.program.client, kycBody());
    const entityToken = (await retrieve(created.token)).individual?.entity_token as string;
    // 000-00-0001 would be REJECTED at enrollment; an update changes the information only.
    const updated = await update(created.token, { individual: { entity_token: entityToken, government_id: '000-00-0001', dob: '1985-01-02T18:00:00-08:00' } });
    expect(updated).toMatchObject({ status: 'ACCEPTED', individual: { dob: '1985-01-02' } });
    expect((await retrieve(created.token)).individual?.dob).toBe('1985-01-02');
    expect(updated.individual).not.toHaveProperty('government_id');
    expect(JSON.stringify(updated)).not.toMatch(/000000001|000-00-0001/);
    expect(await governmentIds(created.token)).toEqual({ [entityToken]: '000000001' });
    expect((await context.program.client.accounts.retrieve(created.account_token)).state).toBe('ACTIVE');
  });

  it('KYB patch: business entity, control person and a beneficial owner by entity token, with the business fields; PENDING_REVIEW stays pending', async () => {
    const body = { ...kybBody(), beneficial_owner_individuals: [kybBody().beneficial_owner_individuals[0], { ...person('ann'), first_name: 'Ann', government_id: '333-44-5555' }] };
    const created = await enroll(context.program.client, body);
    const before = await retrieve(created.token);
    const [tim, ann] = before.beneficial_owner_individuals ?? [];
    const business = before.business_entity as NonNullable<Holder['business_entity']>;
    const control = before.control_person as NonNullable<Holder['control_person']>;

    const updated = await update(created.token, {
      business_entity: { entity_token: business.entity_token, legal_business_name: 'Renamed Co', government_id: '98-7654321', address: { city: 'Oakland' }, dba_business_name: 'Renamed' },
      control_person: { entity_token: control.entity_token, email: 'Boss@Example.com', phone_number: '+15555550777' },
      beneficial_owner_individuals: [{ entity_token: ann?.entity_token, last_name: 'Smith' }],
      nature_of_business: 'Restaurant software and hardware',
      website_url: 'https://renamed.example.com',
      external_id: 'kyb-ext-1',
    });
    expect(updated).toEqual(withoutEntityTokens({
      ...before,
      external_id: 'kyb-ext-1',
      email: 'Boss@Example.com',
      phone_number: '+15555550777',
      nature_of_business: 'Restaurant software and hardware',
      website_url: 'https://renamed.example.com',
      business_entity: { ...business, legal_business_name: 'Renamed Co', dba_business_name: 'Renamed', government_id: '*****4321', address: { ...business.address, city: 'Oakland' } },
      control_person: { ...control, email: 'Boss@Example.com', phone_number: '+15555550777' },
      beneficial_owner_individuals: [tim, { ...ann, last_name: 'Smith' }],
      verification_application: { ...before.verification_application, updated: expect.any(String) },
    }));
    expect(updated).toMatchObject({ status: 'PENDING_REVIEW', verification_application: { status: 'PENDING_REVIEW' } });
    expect(withoutEntityTokens(await retrieve(created.token))).toEqual(updated);
    const ids = await governmentIds(created.token);
    expect(ids[business.entity_token]).toBe('987654321');
    expect(ids[control.entity_token]).toBe('111223333');
  });

  it('KYB patch: the deprecated beneficial owner entities are patched by entity token too', async () => {
    const created = await enroll(context.program.client, { ...kybBody('KYB_BYO'), beneficial_owner_entities: [{ ...kybBody().business_entity, legal_business_name: 'Holding 1' }] });
    const owner = (await retrieve(created.token)).beneficial_owner_entities?.[0] as NonNullable<Holder['beneficial_owner_entities']>[number] & { entity_token: string };
    const updated = await update(created.token, { beneficial_owner_entities: [{ entity_token: owner.entity_token, phone_numbers: ['+15555550303'] }] });
    expect(updated.beneficial_owner_entities).toEqual(withoutEntityTokens({ beneficial_owner_entities: [{ ...owner, phone_numbers: ['+15555550303'] }] }).beneficial_owner_entities);
    // An entity token is a UUID: in upper case it names the same entity, as every token does.
    const business = (await retrieve(created.token)).business_entity?.entity_token as string;
    await update(created.token, { business_entity: { entity_token: business.toUpperCase(), dba_business_name: 'Loud' } });
    expect((await retrieve(created.token)).business_entity).toMatchObject({ entity_token: business, dba_business_name: 'Loud' });
    const again = await update(created.token, { beneficial_owner_entities: [{ entity_token: owner.entity_token.toUpperCase(), phone_numbers: ['+15555550404'] }] });
    expect(again.beneficial_owner_entities).toEqual(withoutEntityTokens({ beneficial_owner_entities: [{ ...owner, phone_numbers: ['+15555550404'] }] }).beneficial_owner_entities);
  });

  it('legacy patch of a KYC_EXEMPT holder: contact details, names and address; answers the PatchResponse shape', async () => {
    const program = await context.server.newProgram('exempt update');
    const created = await enroll(program.client, kycExemptBody());
    const before = await program.client.accountHolders.retrieve(created.token);
    const later = await clockMovedAhead(program);
    const patched = await update(created.token, { email: 'Pat.New@Example.com', phone_number: '+15555550404', last_name: 'Lee-Park', address: { address1: '7 Wall Street' } }, program.client);
    const address = { ...US_ADDRESS, address1: '7 Wall Street' };
    expect(patched).toEqual({ token: created.token, email: 'Pat.New@Example.com', phone_number: '+15555550404', first_name: 'Pat', last_name: 'Lee-Park', address });

    const after = await program.client.accountHolders.retrieve(created.token);
    expect(after).toEqual({
      ...before,
      email: 'Pat.New@Example.com',
      phone_number: '+15555550404',
      individual: { ...before.individual, email: 'Pat.New@Example.com', phone_number: '+15555550404', last_name: 'Lee-Park', address },
      verification_application: { ...before.verification_application, updated: expect.any(String) },
    });
    expectStampedAt(after.verification_application?.updated, later);
    const account = await program.client.accounts.retrieve(created.account_token);
    expect(account.account_holder).toMatchObject({ email: 'Pat.New@Example.com', phone_number: '+15555550404' });
    expect(account.verification_address).toEqual(address);
  });

  it('legacy patch: business_account_token follows the create rules (enrolled business, AUTHORIZED_USER only)', async () => {
    const client = context.program.client;
    const user = await enroll(client, kycExemptBody('AUTHORIZED_USER'));
    const business = await enroll(client, kybBody('KYB_BYO'));
    const patched = await update(user.token, { business_account_token: business.account_token });
    expect(patched).toMatchObject({ token: user.token, business_account_token: business.account_token });
    expect((await client.accounts.retrieve(user.account_token)).account_holder?.business_account_token).toBe(business.account_token);

    const pending = await enroll(client, kybBody('KYB_BASIC'));
    const individual = await enroll(client, kycBody());
    const prepaid = await enroll(client, kycExemptBody('PREPAID_CARD_USER'));
    const refusals: Array<[string, string, number, RegExp]> = [
      [user.token, crypto.randomUUID(), 404, /^business_account_token: account '.*' not found$/],
      [user.token, pending.account_token, 422, /^business_account_token: .*PENDING_REVIEW/],
      [user.token, individual.account_token, 422, /^business_account_token: .*not the account of a BUSINESS/],
      [prepaid.token, business.account_token, 400, /^business_account_token: only applies to kyc_exemption_type AUTHORIZED_USER$/],
    ];
    for (const [holder, accountToken, status, message] of refusals) {
      const failure = await apiFailure(update(holder, { business_account_token: accountToken }));
      expect(failure.status, accountToken).toBe(status);
      expect(failure.message).toMatch(message);
    }
    expect((await retrieve(user.token)).business_account_token).toBe(business.account_token);
    expect((await retrieve(prepaid.token)).business_account_token).toBeUndefined();
  });

  it('legacy patch (SDK PatchRequest) of a KYC holder: e-mail and phone for every workflow, names and address for KYC_BYO; answers the PatchResponse', async () => {
    const basic = await enroll(context.program.client, kycBody());
    const before = await retrieve(basic.token);
    const email = `${basic.token}@example.com`;
    const patched = await update(basic.token, { email, phone_number: '+15555550505' });
    expect(patched).toEqual({ token: basic.token, email, phone_number: '+15555550505', first_name: 'Jane', last_name: 'Doe', address: US_ADDRESS });
    const after = await retrieve(basic.token);
    expect(after).toEqual({
      ...before,
      email,
      phone_number: '+15555550505',
      individual: { ...before.individual, email, phone_number: '+15555550505' },
      verification_application: { ...before.verification_application, updated: expect.any(String) },
    });
    expect((await context.program.client.accountHolders.list({ email })).data.map((holder) => holder.token)).toEqual([basic.token]);

    const byo = await enroll(context.program.client, kycBody('KYC_BYO'));
    const renamed = await update(byo.token, { first_name: 'Janet', last_name: 'Roe', address: { city: 'Brooklyn', postal_code: '11201' } });
    const address = { ...US_ADDRESS, city: 'Brooklyn', postal_code: '11201' };
    expect(renamed).toMatchObject({ token: byo.token, first_name: 'Janet', last_name: 'Roe', address });
    expect((await retrieve(byo.token)).individual).toMatchObject({ first_name: 'Janet', last_name: 'Roe', address });
  });

  it('legacy patch (SDK PatchRequest) of a business: e-mail and phone are its control person’s, legal_business_name and address its own for KYB_BYO', async () => {
    const byo = await enroll(context.program.client, kybBody('KYB_BYO'));
    const before = await retrieve(byo.token);
    const email = `${byo.token}@example.com`;
    const patched = await update(byo.token, { email, phone_number: '+15555550606', legal_business_name: 'Legacy Renamed LLC', address: { city: 'Oakland' } });
    const address = { ...before.business_entity?.address, city: 'Oakland' };
    expect(patched).toEqual({ token: byo.token, email, phone_number: '+15555550606', legal_business_name: 'Legacy Renamed LLC', address });
    expect(await retrieve(byo.token)).toEqual({
      ...before,
      email,
      phone_number: '+15555550606',
      business_entity: { ...before.business_entity, legal_business_name: 'Legacy Renamed LLC', address },
      control_person: { ...before.control_person, email, phone_number: '+15555550606' },
      verification_application: { ...before.verification_application, updated: expect.any(String) },
    });
    expect((await context.program.client.accountHolders.list({ legal_business_name: 'legacy renamed' })).data.map((holder) => holder.token)).toEqual([byo.token]);

    const basic = await enroll(context.program.client, kybBody());
    expect(await update(basic.token, { phone_number: '+15555550707' })).toMatchObject({ token: basic.token, phone_number: '+15555550707' });
    expect(await retrieve(basic.token)).toMatchObject({ status: 'PENDING_REVIEW', phone_number: '+15555550707', control_person: { phone_number: '+15555550707' } });
  });

  it('patches names with spaces inside and around them and letters beyond ASCII, as given', async () => {
    const holder = await retrieve((await enroll(context.program.client, kybBody('KYB_BYO'))).token);
    await update(holder.token, { business_entity: { entity_token: holder.business_entity?.entity_token, legal_business_name: VISIBLE_TEXT }, control_person: { entity_token: holder.control_person?.entity_token, first_name: VISIBLE_TEXT } });
    const after = await retrieve(holder.token);
    expect([after.business_entity?.legal_business_name, after.control_person?.first_name]).toEqual([VISIBLE_TEXT, VISIBLE_TEXT]);
  });

  it('an empty patch changes nothing, not even the updated stamp', async () => {
    const created = await enroll(context.program.client, kycBody());
    const before = await retrieve(created.token);
    expect(await update(created.token, {})).toEqual(withoutEntityTokens(before));
    // The SDK's own example sends no body at all: `client.accountHolders.update(token)`.
    const withoutBody = context.program.client.accountHolders.update as unknown as (token: string) => Promise<unknown>;
    expect(await withoutBody.call(context.program.client.accountHolders, created.token)).toEqual(withoutEntityTokens(before));
    expect(await update(created.token, { email: before.email })).toMatchObject({ token: created.token, email: before.email });
    expect(await retrieve(created.token)).toEqual(before);
    const entityToken = before.individual?.entity_token as string;
    expect(await update(created.token, { individual: { entity_token: entityToken, first_name: 'Jane' } })).toEqual(withoutEntityTokens(before));
  });

  it('never dates the change (nor its account_holder.updated event) before the holder’s last change (one stamped by a request that saw a moved clock)', async () => {
    const { client, programId } = context.program;
    const created = await enroll(client, kycBody());
    const laterMs = Date.parse((await retrieve(created.token)).created as string) + 3_600_000;
    // As if a PATCH at a clock moved an hour ahead had committed first.
    await changedLastAt(context.server.server.db, 'account_holders', programId, created.token, laterMs);
    const updated = await update(created.token, { external_id: 'after-the-later-change' });
    expect(Date.parse(updated.verification_application?.updated as string)).toBe(laterMs);
    const events = (await client.events.list({ event_types: ['account_holder.updated'], page_size: 100, with_content: true })).data;
    const event = events.find((item) => (item.payload as { token?: string }).token === created.token);
    expect(Date.parse(event?.created as string)).toBe(laterMs);
    expect(event?.payload).toMatchObject({ external_id: 'after-the-later-change', verification_application: { updated: updated.verification_application?.updated } });
  });

  describe('refusals: the holder is left as it was', () => {
    let kyc: Holder;
    let kyb: Holder;
    let exempt: Holder;
    let other: Holder;

    beforeAll(async () => {
      kyc = await retrieve((await enroll(context.program.client, kycBody('KYC_BYO'))).token);
      kyb = await retrieve((await enroll(context.program.client, kybBody('KYB_BYO'))).token);
      exempt = await retrieve((await enroll(context.program.client, kycExemptBody())).token);
      other = await retrieve((await enroll(context.program.client, kybBody('KYB_BYO'))).token);
    });

    const individual = (patch: Body) => ({ individual: { entity_token: kyc.individual?.entity_token, ...patch } });
    const businessEntity = (patch: Body) => ({ business_entity: { entity_token: kyb.business_entity?.entity_token, ...patch } });
    const control = (patch: Body) => ({ control_person: { entity_token: kyb.control_person?.entity_token, ...patch } });
    const owner = (patch: Body) => ({ beneficial_owner_individuals: [{ entity_token: kyb.beneficial_owner_individuals?.[0]?.entity_token, ...patch }] });

    const badValues: Array<[string, () => Holder, () => Body, string | RegExp]> = [
      ['individual email', () => kyc, () => individual({ email: 'nope' }), 'individual.email: must be a valid email'],
      ['individual phone', () => kyc, () => individual({ phone_number: '5555550100' }), 'individual.phone_number: must be an E.164 phone number: + and up to 15 digits, e.g. +15555555555'],
      ['individual SSN', () => kyc, () => individual({ government_id: '12-3456789' }), 'individual.government_id: must be a nine-digit SSN or ITIN, with or without hyphens (123-45-6789)'],
      ['individual dob', () => kyc, () => individual({ dob: '2999-01-01' }), 'individual.dob: must not be in the future'],
      ['individual empty name', () => kyc, () => individual({ first_name: '' }), 'individual.first_name: must NOT have fewer than 1 characters'],
      ['individual PO box', () => kyc, () => individual({ address: { address1: 'PO Box 12' } }), 'individual.address.address1: PO boxes are not accepted; give a street address (APO/FPO are accepted)'],
      ['individual ZIP', () => kyc, () => individual({ address: { postal_code: '123' } }), 'individual.address.postal_code: must be a five-digit ZIP or a nine-digit ZIP+4 (12345 or 12345-6789)'],
      ['individual state', () => kyc, () => individual({ address: { state: 'ny' } }), 'individual.address.state: must be an uppercase two-letter US state code (ISO 3166-2, e.g. NY)'],
      ['individual country', () => kyc, () => individual({ address: { country: 'CAN' } }), 'individual.address.country: must be "USA"'],
      ['individual unknown field', () => kyc, () => individual({ middle_name: 'Q' }), 'individual.middle_name: is not a recognised field'],
      ['individual without entity token', () => kyc, () => ({ individual: { first_name: 'X' } }), 'individual.entity_token: is required'],
      ['entity token not a uuid', () => kyc, () => ({ individual: { entity_token: 'nope' } }), 'individual.entity_token: must be a valid uuid'],
      ['external_id empty', () => kyc, () => ({ external_id: '' }), 'external_id: must NOT have fewer than 1 characters'],
      ['EIN', () => kyb, () => businessEntity({ government_id: '123-45-6789' }), 'business_entity.government_id: must be a nine-digit EIN, with or without hyphen (12-3456789)'],
      ['business phone', () => kyb, () => businessEntity({ phone_numbers: ['+15555550101', '555'] }), 'business_entity.phone_numbers[1]: must be an E.164 phone number: + and up to 15 digits, e.g. +15555555555'],
      ['no business phones', () => kyb, () => businessEntity({ phone_numbers: [] }), 'business_entity.phone_numbers: must NOT have fewer than 1 items'],
      ['control person dob', () => kyb, () => control({ dob: '1990-13-01' }), 'control_person.dob: must be an RFC 3339 date such as 1990-04-12'],
      ['owner state', () => kyb, () => owner({ address: { state: 'XX' } }), 'beneficial_owner_individuals[0].address.state: must be an uppercase two-letter US state code (ISO 3166-2, e.g. NY)'],
      ['website', () => kyb, () => ({ website_url: 'not a url' }), 'website_url: must be an http:// or https:// URL naming a host'],
      ['nature of business empty', () => kyb, () => ({ nature_of_business: '' }), 'nature_of_business: must NOT have fewer than 1 characters'],
      ['website not on the web', () => kyb, () => ({ website_url: 'javascript:alert(1)' }), 'website_url: must be an http:// or https:// URL naming a host'],
      ['nature of business blank', () => kyb, () => ({ nature_of_business: ' ' }), notVisibleMessage('nature_of_business')],
      ['nature of business with a control character', () => kyb, () => ({ nature_of_business: 'Bell\u0007' }), notVisibleMessage('nature_of_business')],
      ['same entity twice', () => kyb, () => ({ beneficial_owner_individuals: [owner({}).beneficial_owner_individuals[0], owner({ first_name: 'X' }).beneficial_owner_individuals[0]] }), /^beneficial_owner_individuals\[1\]\.entity_token: entity '[0-9a-f-]{36}' is already patched by beneficial_owner_individuals\[0\]$/],
      ['exempt email', () => exempt, () => ({ email: 'x@' }), 'email: must be a valid email'],
      ['exempt phone', () => exempt, () => ({ phone_number: '+0' }), 'phone_number: must be an E.164 phone number: + and up to 15 digits, e.g. +15555555555'],
      ['exempt address', () => exempt, () => ({ address: { address2: 'FedEx Office 12' } }), 'address.address2: UPS and FedEx drop locations are not accepted; give a street address'],
      ['exempt business token', () => exempt, () => ({ business_account_token: 'nope' }), 'business_account_token: must be a valid uuid'],
      ['unknown field', () => exempt, () => ({ nickname: 'x' }), 'nickname: is not a recognised field'],
      ...NOT_VISIBLE_TEXTS.flatMap((name): Array<[string, () => Holder, () => Body, string]> => [
        [`individual first name ${JSON.stringify(name)}`, () => kyc, () => individual({ first_name: name }), notVisibleMessage('individual.first_name')],
        [`individual last name ${JSON.stringify(name)}`, () => kyc, () => individual({ last_name: name }), notVisibleMessage('individual.last_name')],
        [`legal business name ${JSON.stringify(name)}`, () => kyb, () => businessEntity({ legal_business_name: name }), notVisibleMessage('business_entity.legal_business_name')],
        [`dba business name ${JSON.stringify(name)}`, () => kyb, () => businessEntity({ dba_business_name: name }), notVisibleMessage('business_entity.dba_business_name')],
        [`control person name ${JSON.stringify(name)}`, () => kyb, () => control({ last_name: name }), notVisibleMessage('control_person.last_name')],
        [`owner name ${JSON.stringify(name)}`, () => kyb, () => owner({ first_name: name }), notVisibleMessage('beneficial_owner_individuals[0].first_name')],
        [`exempt name ${JSON.stringify(name)}`, () => exempt, () => ({ first_name: name }), notVisibleMessage('first_name')],
        [`exempt address city ${JSON.stringify(name)}`, () => exempt, () => ({ address: { city: name } }), notVisibleMessage('address.city')],
        [`owner address line ${JSON.stringify(name)}`, () => kyb, () => owner({ address: { address1: name } }), notVisibleMessage('beneficial_owner_individuals[0].address.address1')],
        [`KYC external_id ${JSON.stringify(name)}`, () => kyc, () => ({ external_id: name }), notVisibleMessage('external_id')],
        [`KYB external_id ${JSON.stringify(name)}`, () => kyb, () => ({ external_id: name }), notVisibleMessage('external_id')],
      ]),
    ];

    const wrongVariant: Array<[string, () => Holder, () => Body, RegExp]> = [
      ['KYC holder given email with its individual', () => kyc, () => ({ ...individual({ first_name: 'X' }), email: 'a@example.com' }), /^email: does not apply to a KYC_BYO account holder; it takes the KYC patch \(individual, external_id\) or the legacy patch \(address, email, first_name, last_name, phone_number\), one or the other$/],
      ['KYC holder given business_account_token', () => kyc, () => ({ business_account_token: crypto.randomUUID() }), /^business_account_token: does not apply to a KYC_BYO account holder; it takes the KYC patch/],
      ['KYC holder given business_entity', () => kyc, () => businessEntity({ legal_business_name: 'X' }), /^business_entity: does not apply to a KYC_BYO account holder/],
      ['KYB holder given individual', () => kyb, () => individual({ first_name: 'X' }), /^individual: does not apply to a KYB_BYO account holder; it takes the KYB patch \(/],
      ['KYB holder given legal_business_name with nature_of_business', () => kyb, () => ({ nature_of_business: 'X', legal_business_name: 'X' }), /^legal_business_name: does not apply to a KYB_BYO account holder/],
      ['KYB holder given phone_number with its control person', () => kyb, () => ({ ...control({ first_name: 'X' }), phone_number: '+15555550100' }), /^phone_number: does not apply/],
      ['KYB holder given first_name', () => kyb, () => ({ first_name: 'X' }), /^first_name: does not apply to a KYB_BYO account holder; it takes the KYB patch \(.*\) or the legacy patch \(address, email, legal_business_name, phone_number\), one or the other$/],
      ['exempt holder given individual', () => exempt, () => individual({ first_name: 'X' }), /^individual: does not apply to a KYC_EXEMPT account holder; it takes the legacy patch \(/],
      ['exempt holder given external_id', () => exempt, () => ({ external_id: 'x' }), /^external_id: does not apply to a KYC_EXEMPT account holder/],
      ['exempt holder given legal_business_name', () => exempt, () => ({ legal_business_name: 'X' }), /^legal_business_name: does not apply to a KYC_EXEMPT account holder/],
    ];

    async function expectRefused(holder: Holder, body: Body, status: number, message: string | RegExp) {
      const failure = await apiFailure(update(holder.token, body));
      expect(failure.status).toBe(status);
      if (typeof message === 'string') expect(failure.message).toBe(message);
      else expect(failure.message).toMatch(message);
      expect(await retrieve(holder.token)).toEqual(holder);
    }

    it.each(badValues)('bad value: %s is a 400 naming the path', async (_name, holder, body, message) => {
      await expectRefused(holder(), body(), 400, message);
    });

    it.each(wrongVariant)('wrong variant: %s is a 400 naming the field', async (_name, holder, body, message) => {
      await expectRefused(holder(), body(), 400, message);
    });

    it('an entity token that is not this holder’s (unknown, another holder’s, another role’s) is a 422 naming it', async () => {
      const stranger = other.control_person?.entity_token as string;
      const unknown = crypto.randomUUID();
      const cases: Array<[Holder, Body, string]> = [
        [kyc, { individual: { entity_token: unknown, first_name: 'X' } }, `individual.entity_token: entity '${unknown}' is not the individual of account holder '${kyc.token}'`],
        [kyb, { control_person: { entity_token: stranger, first_name: 'X' } }, `control_person.entity_token: entity '${stranger}' is not the control person of account holder '${kyb.token}'`],
        [kyb, { business_entity: { entity_token: kyb.control_person?.entity_token, legal_business_name: 'X' } }, `business_entity.entity_token: entity '${kyb.control_person?.entity_token}' is not the business entity of account holder '${kyb.token}'`],
        [kyb, { nature_of_business: 'changed', beneficial_owner_individuals: [{ entity_token: kyb.control_person?.entity_token, first_name: 'X' }] }, `beneficial_owner_individuals[0].entity_token: entity '${kyb.control_person?.entity_token}' is not a beneficial owner individual of account holder '${kyb.token}'`],
      ];
      for (const [holder, body, message] of cases) await expectRefused(holder, body, 422, message);
    });

    it('a REJECTED holder is final: 422 naming its status', async () => {
      const rejected = await enroll(context.program.client, withField(kycBody(), 'individual.government_id', '000-00-0004'));
      const holder = await retrieve(rejected.token);
      await expectRefused(holder, individual({ entity_token: holder.individual?.entity_token, first_name: 'Again' }), 422, `account holder '${rejected.token}' is REJECTED; only ACCEPTED and PENDING_REVIEW account holders can be updated`);
      const rejectedBusiness = await enroll(context.program.client, kybBody());
      await context.program.client.accountHolders.simulateEnrollmentReview({ account_holder_token: rejectedBusiness.token, status: 'REJECTED', status_reasons: ['PRIMARY_BUSINESS_ENTITY_CMRA_FAILURE'] });
      await expectRefused(await retrieve(rejectedBusiness.token), { external_id: 'x' }, 422, /is REJECTED/);
    });

    it('an unknown holder, or another program’s, is a 404', async () => {
      const unknown = await apiFailure(update(crypto.randomUUID(), { external_id: 'x' }));
      expect(unknown.status).toBe(404);
      const theirs = await context.server.newProgram('update theirs');
      const failure = await apiFailure(update(kyb.token, { external_id: 'x' }, theirs.client));
      expect(failure.status).toBe(404);
      expect(failure.message).toBe(`account holder '${kyb.token}' not found`);
      expect(await retrieve(kyb.token)).toEqual(kyb);
    });
  });

  it('the list filters find holders by their updated values, and no longer by the old ones', async () => {
    const program = await context.server.newProgram('update listing');
    const jane = await enroll(program.client, kycBody());
    const business = await enroll(program.client, kybBody('KYB_BYO'));
    const pat = await enroll(program.client, kycExemptBody());
    const janeHolder = await program.client.accountHolders.retrieve(jane.token);
    const businessHolder = await program.client.accountHolders.retrieve(business.token);
    await update(jane.token, { individual: { entity_token: janeHolder.individual?.entity_token, first_name: 'Josephine', last_name: 'Quark', email: 'Josie@Example.com' }, external_id: 'jo-1' }, program.client);
    await update(
      business.token,
      {
        business_entity: { entity_token: businessHolder.business_entity?.entity_token, legal_business_name: 'Zebra Holdings' },
        control_person: { entity_token: businessHolder.control_person?.entity_token, phone_number: '+15555558888' },
      },
      program.client,
    );
    await update(pat.token, { first_name: 'Patricia', email: 'patricia@example.com', phone_number: '+15555557777' }, program.client);
    const tokens = (query: Record<string, unknown>) => program.client.accountHolders.list(query as never).then((page) => page.data.map((holder) => holder.token));

    expect(await tokens({ email: 'JOSIE@example.com' })).toEqual([jane.token]);
    expect(await tokens({ email: janeHolder.email })).toEqual([]);
    expect(await tokens({ first_name: 'sephi' })).toEqual([jane.token]);
    expect(await tokens({ last_name: 'QUARK' })).toEqual([jane.token]);
    expect(await tokens({ external_id: 'jo-1' })).toEqual([jane.token]);
    expect(await tokens({ legal_business_name: 'zebra' })).toEqual([business.token]);
    expect(await tokens({ legal_business_name: 'Busy' })).toEqual([]);
    expect(await tokens({ phone_number: '+15555558888' })).toEqual([business.token]);
    expect(await tokens({ first_name: 'patricia' })).toEqual([pat.token]);
    expect(await tokens({ email: 'Patricia@Example.com' })).toEqual([pat.token]);
    expect(await tokens({ phone_number: '+15555557777' })).toEqual([pat.token]);
  });

  it('concurrent updates of one holder serialize: every change is kept', async () => {
    const body = { ...kybBody('KYB_BYO'), beneficial_owner_individuals: [1, 2, 3, 4].map((n) => ({ ...person(`owner${n}`), first_name: `Owner${n}` })) };
    const created = await enroll(context.program.client, body);
    const holder = await retrieve(created.token);
    const owners = holder.beneficial_owner_individuals ?? [];
    const patches: Body[] = [
      ...owners.map((owner, index) => ({ beneficial_owner_individuals: [{ entity_token: owner.entity_token, last_name: `Renamed${index}`, government_id: `55566000${index}` }] })),
      { control_person: { entity_token: holder.control_person?.entity_token, government_id: '777-88-9999', first_name: 'Boss' } },
      { business_entity: { entity_token: holder.business_entity?.entity_token, address: { city: 'Oakland' } } },
      { nature_of_business: 'Concurrent' },
      { external_id: 'concurrent-1' },
    ];
    await Promise.all(patches.map((patch) => update(created.token, patch)));
    const after = await retrieve(created.token);
    expect(after.beneficial_owner_individuals?.map((owner) => owner.last_name)).toEqual(['Renamed0', 'Renamed1', 'Renamed2', 'Renamed3']);
    expect(after).toMatchObject({ control_person: { first_name: 'Boss' }, business_entity: { address: { city: 'Oakland' } }, nature_of_business: 'Concurrent', external_id: 'concurrent-1' });
    const ids = await governmentIds(created.token);
    expect(owners.map((owner) => ids[owner.entity_token as string])).toEqual(['555660000', '555660001', '555660002', '555660003']);
    expect(ids[holder.control_person?.entity_token as string]).toBe('777889999');
  });
});
