/**
 * A program never sees another's data. Program A owns a real resource of every kind; program B then
 * calls every operation of the OpenAPI document (so a route added later is covered without anyone
 * remembering) with A's tokens: in the path (404, exactly like a missing resource), in every
 * token-valued list filter and cursor (an empty page, or 400 for a cursor that names no item of the
 * list), and in every token-valued body field of a write (404, or 422 where the route answers an
 * unknown token so). Each refusal must be the very answer a random, unknown token gets, and a write
 * whose body carries B's own tokens instead must succeed, so the refusal is about the token and
 * nothing else. No answer to B may contain a token or card number of A, and A's resources (every
 * GET of them, balances included) must be the same after as before.
 *
 * An operation, parameter or body field that this test cannot exercise fails it, unless it is in
 * EXCEPTIONS with the reason.
 */
import crypto from 'node:crypto';
import type Lithic from 'lithic';
import { expect, it } from 'vitest';
import { conditionalBlock } from '../testing/auth_rules.js';
import { enroll, kybBody, kycExemptBody } from '../testing/enrollment.js';
import { describeWithDb, useTestServer, type TestProgram } from '../testing/harness.js';
import { manualBankAccount } from '../testing/money.js';
import { bodySchema, openApiRoutes, type JsonSchema } from '../testing/openapi.js';
import { ownedResources, threeDsBody, type Owned } from '../testing/owned.js';
import { authorize } from '../testing/transactions.js';

/** What this test does not exercise, and why. A key that no longer matches anything fails the test too. */
const EXCEPTIONS: Record<string, string> = {
  'POST /v1/cards digital_card_art_token': 'no digital card art resource in Cardwright: the token is stored as given, never looked up',
  'PATCH /v1/cards/{card_token} digital_card_art_token': 'no digital card art resource in Cardwright: the token is stored as given, never looked up',
  'PATCH /v1/cards/{card_token} network_program_token': 'no network program resource in Cardwright: the token is stored as given, never looked up',
};

/** Simulations of network and 3DS messages answer a token or card number they cannot find with 422 (the message cannot be processed). */
const UNKNOWN_IS_422 = new Set([
  'POST /v1/simulate/authorize pan',
  'POST /v1/simulate/authorization_advice token',
  'POST /v1/simulate/clearing token',
  'POST /v1/simulate/void token',
  'POST /v1/simulate/return pan',
  'POST /v1/simulate/return_reversal token',
  'POST /v1/simulate/credit_authorization_advice pan',
  'POST /v1/three_ds_authentication/simulate pan',
  'POST /v1/three_ds_decisioning/simulate/enter_otp token',
]);

/**
 * A create's own `token` (the client's idempotency token, which becomes the new resource's) is unique
 * per program: B naming A's token creates B's own resource, and must neither show nor change A's.
 */
const TOKEN_PER_PROGRAM = new Set(['POST /v1/book_transfers token', 'POST /v1/management_operations token', 'POST /v1/external_payments token']);

/** Which kind of A's tokens a query or body field takes, where its name does not say it. */
const FIELD_KINDS: Record<string, string> = {
  from_financial_account_token: 'financial_account_token',
  to_financial_account_token: 'financial_account_token',
  replacement_account_token: 'account_token',
  replacement_for: 'card_token',
  account_tokens: 'account_token',
  business_account_tokens: 'business_account_token',
  card_tokens: 'card_token',
  excluded_card_tokens: 'card_token',
};

/** The resource a `token` body field names, by route: the transaction or 3DS authentication a message is about. */
const TOKEN_FIELD_KINDS: Record<string, string> = {
  'POST /v1/simulate/authorization_advice': 'transaction_token',
  'POST /v1/simulate/clearing': 'transaction_token',
  'POST /v1/simulate/void': 'transaction_token',
  'POST /v1/simulate/return_reversal': 'transaction_token',
  'POST /v1/three_ds_decisioning/challenge_response': 'three_ds_authentication_token',
  'POST /v1/three_ds_decisioning/simulate/enter_otp': 'three_ds_authentication_token',
  'POST /v1/book_transfers': 'book_transfer_token',
  'POST /v1/management_operations': 'management_operation_token',
  'POST /v1/external_payments': 'external_payment_token',
};

/** A write as B would send it: path parameters and body. */
interface Write {
  params?: Record<string, string>;
  body: Record<string, unknown>;
}
type WriteOf = (b: TestProgram, own: Owned, field: string) => Promise<Write>;

const today = async (client: Lithic) => (await client.get<unknown, { now: string }>('/v1/simulate/clock')).now.slice(0, 10);
const first = (own: Owned, kind: string) => own.tokens[kind]![0]!;

/**
 * Writes that succeed for B with its own tokens in their token fields: the field under test is then
 * replaced by A's token (or a random one). Built fresh for each field, so one-shot actions (resolving a
 * challenge, clearing an authorization) have something to act on.
 */
const VALID_WRITES: Record<string, WriteOf> = {
  'POST /v1/financial_accounts': async (_b, own) => ({ body: { nickname: 'b', type: 'OPERATING', account_token: first(own, 'account_token') } }),
  'POST /v1/account_holders': async (_b, own) => ({ body: { ...kycExemptBody('AUTHORIZED_USER'), business_account_token: first(own, 'business_account_token') } }),
  'PATCH /v1/account_holders/{account_holder_token}': async (b, own) => ({
    params: { account_holder_token: (await enroll(b.client, kycExemptBody('AUTHORIZED_USER'))).token },
    body: { business_account_token: first(own, 'business_account_token') },
  }),
  'POST /v1/simulate/account_holders/enrollment_review': async (b) => ({ body: { account_holder_token: (await enroll(b.client, kybBody())).token, status: 'ACCEPTED' } }),
  // A replacement closes the card it replaces: B replaces a card of its own made for it, never own.card.
  'POST /v1/cards': async (b, own, field) =>
    field === 'account_token'
      ? { body: { type: 'VIRTUAL', account_token: own.card.account_token, card_program_token: first(own, 'card_program_token') } }
      : {
          body: {
            type: 'VIRTUAL',
            replacement_for: (await b.client.cards.create({ type: 'VIRTUAL', account_token: own.card.account_token })).token,
            replacement_account_token: own.card.account_token,
            card_program_token: first(own, 'card_program_token'),
          },
        },
  'POST /v1/book_transfers': async (_b, own) => ({
    body: { amount: 1, category: 'TRANSFER', type: 'ACCOUNT_TO_ACCOUNT', subtype: 'P2P', from_financial_account_token: own.operating, to_financial_account_token: own.card.funding.token, token: crypto.randomUUID() },
  }),
  'POST /v1/management_operations': async (b, own) => ({
    body: { amount: 1, category: 'MANAGEMENT_ADJUSTMENT', direction: 'CREDIT', effective_date: await today(b.client), event_type: 'PROVISIONAL_CREDIT', financial_account_token: own.operating, token: crypto.randomUUID() },
  }),
  'POST /v1/external_payments': async (b, own) => ({
    body: { amount: 1, category: 'EXTERNAL_WIRE', effective_date: await today(b.client), financial_account_token: own.operating, payment_type: 'DEPOSIT', token: crypto.randomUUID() },
  }),
  'POST /v1/external_bank_accounts': async (_b, own) => ({ body: { ...manualBankAccount(own.operating), account_token: own.card.account_token } }),
  'POST /v1/external_bank_accounts/{external_bank_account_token}/retry_micro_deposits': async (b, own) => ({
    params: { external_bank_account_token: (await b.client.externalBankAccounts.create({ ...manualBankAccount(own.operating), verification_method: 'MICRO_DEPOSIT' } as never)).token },
    body: { financial_account_token: own.operating },
  }),
  'POST /v1/external_bank_accounts/{external_bank_account_token}/retry_prenote': async (b, own) => ({
    params: { external_bank_account_token: (await b.client.externalBankAccounts.create({ ...manualBankAccount(own.operating), verification_method: 'PRENOTE' } as never)).token },
    body: { financial_account_token: own.operating },
  }),
  'POST /v2/auth_rules': async (_b, own, field) => ({ body: conditionalBlock([{ attribute: 'MCC', operation: 'IS_ONE_OF', value: ['7995'] }], scopeFor(own, field)) }),
  'PATCH /v2/auth_rules/{auth_rule_token}': async (_b, own, field) => ({ params: { auth_rule_token: first(own, 'auth_rule_token') }, body: scopeFor(own, field) }),
  'POST /v1/three_ds_authentication/simulate': async (_b, own) => ({ body: threeDsBody(own.card.pan) }),
  'POST /v1/three_ds_decisioning/challenge_response': async (b, own) => ({ body: { token: await challenge(b, own), challenge_response: 'APPROVE' } }),
  'POST /v1/three_ds_decisioning/simulate/enter_otp': async (b, own) => ({ body: { token: await challenge(b, own), otp: '123456' } }),
  'POST /v1/simulate/authorize': async (_b, own) => ({ body: { amount: 1, descriptor: 'SHOP', pan: own.card.pan } }),
  'POST /v1/simulate/authorization_advice': async (b, own) => ({ body: { token: await authorize(b.client, own.card, 10), amount: 5 } }),
  'POST /v1/simulate/clearing': async (b, own) => ({ body: { token: await authorize(b.client, own.card, 10) } }),
  'POST /v1/simulate/void': async (b, own) => ({ body: { token: await authorize(b.client, own.card, 10) } }),
  'POST /v1/simulate/return': async (_b, own) => ({ body: { amount: 1, descriptor: 'SHOP', pan: own.card.pan } }),
  'POST /v1/simulate/return_reversal': async (b, own) => ({
    body: { token: (await b.client.transactions.simulateReturn({ amount: 1, descriptor: 'SHOP', pan: own.card.pan })).token as string },
  }),
  'POST /v1/simulate/credit_authorization_advice': async (_b, own) => ({ body: { amount: 1, descriptor: 'SHOP', pan: own.card.pan } }),
};

/** An Auth Rule scope that has the field under test (excluded cards go with a program-level rule). */
function scopeFor(own: Owned, field: string): Record<string, unknown> {
  if (field === 'excluded_card_tokens') return { program_level: true, excluded_card_tokens: [own.card.token] };
  if (field === 'card_tokens') return { card_tokens: [own.card.token] };
  return { account_tokens: [own.card.account_token], business_account_tokens: [first(own, 'business_account_token')] };
}

async function challenge(b: TestProgram, own: Owned): Promise<string> {
  return (await b.client.threeDS.authentication.simulate(threeDsBody(own.card.pan, 'SHOP CHALLENGE'))).token as string;
}

/** Bodies for writes with a path token and no token field: plausible enough to reach the lookup of the path's resource. */
const PATH_WRITE_BODIES: Record<string, Record<string, unknown>> = {
  'PATCH /v1/financial_accounts/{financial_account_token}': { nickname: 'b' },
  'POST /v1/financial_accounts/{financial_account_token}/update_status': { status: 'CLOSED', substatus: 'END_USER_REQUEST' },
  'PATCH /v1/account_holders/{account_holder_token}': { external_id: 'b' },
  'PATCH /v1/accounts/{account_token}': { daily_spend_limit: 100 },
  'PATCH /v1/cards/{card_token}': { memo: 'b' },
  'POST /v1/book_transfers/{book_transfer_token}/reverse': { memo: 'b' },
  'PATCH /v1/external_bank_accounts/{external_bank_account_token}': { name: 'b' },
  'POST /v1/external_bank_accounts/{external_bank_account_token}/micro_deposits': { micro_deposits: [19, 89] },
  'POST /v1/external_bank_accounts/{external_bank_account_token}/retry_micro_deposits': {},
  'POST /v1/external_bank_accounts/{external_bank_account_token}/retry_prenote': {},
  'PATCH /v2/auth_rules/{auth_rule_token}': { name: 'b' },
  'POST /v2/auth_rules/{auth_rule_token}/draft': { parameters: { conditions: [{ attribute: 'MCC', operation: 'IS_ONE_OF', value: ['5411'] }] } },
  'PATCH /v1/event_subscriptions/{event_subscription_token}': { url: 'https://example.com/b' },
  'POST /v1/simulate/event_subscriptions/{event_subscription_token}/send_example': {},
};

/** Bodies of money movement reversals and external payment actions: an effective date is all they need. */
const DATED_ACTION = /^POST \/v1\/(external_payments\/\{external_payment_token\}\/(settle|release|cancel|reverse)|management_operations\/\{management_operation_token\}\/reverse)$/;

/** Query strings that reads with a path token require, given the program's yesterday (a report covers days up to yesterday). */
const REQUIRED_QUERIES: Record<string, (yesterday: string) => string> = {
  'GET /v2/auth_rules/{auth_rule_token}/report': (yesterday) => `?begin=${yesterday}&end=${yesterday}`,
};

/** Writes that name no resource at all (B's own clock and settings): B sends them too, and A must not change. */
const WRITES_WITHOUT_TOKENS: Record<string, (b: TestProgram) => Promise<Record<string, unknown>>> = {
  'POST /v1/simulate/clock': async (b) => ({ now: new Date(Date.parse((await b.client.get<unknown, { now: string }>('/v1/simulate/clock')).now) + 60_000).toISOString() }),
  'POST /v1/simulate/program': async () => ({ require_funds: false }),
  'POST /v1/event_subscriptions': async () => ({ url: 'https://example.com/b', disabled: true }),
  'POST /v1/three_ds_decisioning/secret/rotate': async () => ({}),
};

const CURSORS = new Set(['starting_after', 'ending_before']);
const LUHN_VALID_UNKNOWN_PAN = '4000009999999991';

function pathParams(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
}

function fill(path: string, params: Record<string, string>): string {
  return path.replace(/\{([^}]+)\}/g, (_all, name: string) => encodeURIComponent(params[name]!));
}

/** Every combination of one value per parameter. */
function combinations(values: Record<string, string[]>): Array<Record<string, string>> {
  return Object.entries(values).reduce<Array<Record<string, string>>>(
    (combos, [name, options]) => combos.flatMap((combo) => options.map((option) => ({ ...combo, [name]: option }))),
    [{}],
  );
}

/** The fields of a body schema that hold tokens or card numbers, over all its variants. */
function tokenFields(schema: JsonSchema | undefined): string[] {
  if (schema === undefined) return [];
  const shapes = [schema, ...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? []).flatMap((part) => [part, part.then ?? {}, part.else ?? {}])];
  const fields = shapes.flatMap((shape) => Object.entries(shape.properties ?? {}));
  const holdsToken = (field: JsonSchema): boolean => field.format === 'uuid' || (field.items !== undefined && holdsToken(field.items)) || [...(field.anyOf ?? [])].some(holdsToken);
  return [...new Set(fields.filter(([name, field]) => name === 'pan' || holdsToken(field)).map(([name]) => name))];
}

interface Answer {
  status: number;
  text: string;
}

describeWithDb("isolation: a program never sees another's data", () => {
  const context = useTestServer();

  it("answers every operation of program B given program A's tokens as if they did not exist, and changes nothing of A's", async () => {
    const a = context.program;
    const b = await context.server.newProgram('program B');
    const [ownA, ownB] = [await ownedResources(a.client), await ownedResources(b.client)];
    // B's business (KYB) holder is accepted, so that its account can take authorized users.
    await b.client.accountHolders.simulateEnrollmentReview({ account_holder_token: ownB.tokens.account_holder_token![1]!, status: 'ACCEPTED' });
    const routes = await openApiRoutes(context.server);
    const failures: string[] = [];
    const usedExceptions = new Set<string>();
    const excepted = (key: string) => (key in EXCEPTIONS ? (usedExceptions.add(key), true) : false);
    const yesterday = new Date(Date.parse(`${await today(a.client)}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    const queryOf = (key: string) => REQUIRED_QUERIES[key]?.(yesterday) ?? '';
    const secretsOfA = [...new Set(Object.values(ownA.tokens).flat())];

    async function call(program: TestProgram, method: string, url: string, body?: object): Promise<Answer> {
      const response = await context.server.request(method, url, { apiKey: program.apiKey, ...(body === undefined ? {} : { body }) });
      return { status: response.status, text: await response.text() };
    }

    /** B's answer must show none of A's tokens or card numbers, except one B itself sent, echoed in an error message (or as its own new resource's token). */
    function checkNoLeak(what: string, answer: Answer, sent: string[] = [], echoedOnSuccess = false) {
      const echoed = (secret: string) => sent.includes(secret) && (answer.status >= 400 || echoedOnSuccess);
      const leaked = secretsOfA.filter((secret) => answer.text.includes(secret) && !echoed(secret));
      if (leaked.length > 0) failures.push(`${what} → ${answer.status} shows A's ${leaked.join(', ')}: ${answer.text.slice(0, 300)}`);
    }

    /** A refusal of A's token must be the refusal of an unknown one, word for word (the token aside). */
    function checkLikeUnknown(what: string, withA: Answer, withUnknown: Answer, tokenOfA: string, unknown: string) {
      const message = (answer: Answer, token: string) => (JSON.parse(answer.text) as { message?: string }).message?.replaceAll(token, '<token>');
      if (withA.status !== withUnknown.status || (withA.status >= 400 && message(withA, tokenOfA) !== message(withUnknown, unknown))) {
        failures.push(`${what}: A's token → ${withA.status} ${withA.text.slice(0, 200)}, an unknown one → ${withUnknown.status} ${withUnknown.text.slice(0, 200)}`);
      }
    }

    function tokensOfA(kind: string, what: string): string[] {
      const tokens = ownA.tokens[kind] ?? [];
      if (tokens.length === 0) failures.push(`${what}: no token of A of kind ${kind} (make one in ownedResources, or add an exception)`);
      return tokens;
    }

    /** Every GET of A's own resources and lists, as A sees them. */
    async function snapshotOfA(): Promise<Record<string, Answer>> {
      const answers: Record<string, Answer> = {};
      for (const { path } of routes.filter((route) => route.method === 'GET' && route.path !== '/v1/simulate/clock')) {
        const params = pathParams(path);
        const combos = combinations(Object.fromEntries(params.map((name) => [name, ownA.tokens[name] ?? []])));
        for (const combo of combos) {
          const url = fill(path, combo) + queryOf(`GET ${path}`);
          const { status, text } = await call(a, 'GET', url);
          answers[`GET ${url}`] = { status, text: text.replace(/"debugging_request_id":"[^"]*"/, '') };
        }
      }
      return answers;
    }

    const before = await snapshotOfA();
    for (const { path } of routes.filter((route) => route.method === 'GET' && pathParams(route.path).length > 0)) {
      const request = new RegExp(`^GET ${path.replace(/\{[^}]+\}/g, '[^/?]+')}(\\?|$)`);
      if (!Object.entries(before).some(([key, answer]) => request.test(key) && answer.status === 200)) failures.push(`GET ${path}: A cannot read its own resource, so B's 404 proves nothing`);
    }

    // 1. Path tokens: B gets 404 for each of A's resources, exactly as for a random token.
    for (const route of routes.filter(({ path }) => pathParams(path).length > 0)) {
      const key = `${route.method} ${route.path}`;
      if (excepted(key)) continue;
      const body = route.method === 'GET' || route.method === 'DELETE' || bodySchema(route.operation) === undefined ? undefined : PATH_WRITE_BODIES[key] ?? (DATED_ACTION.test(key) ? { effective_date: await today(b.client) } : undefined);
      if (body === undefined && bodySchema(route.operation) !== undefined && route.method !== 'GET' && route.method !== 'DELETE') {
        failures.push(`${key}: no plausible body in PATH_WRITE_BODIES`);
        continue;
      }
      const params = pathParams(route.path);
      for (const combo of combinations(Object.fromEntries(params.map((name) => [name, tokensOfA(name, key)])))) {
        const url = fill(route.path, combo) + queryOf(key);
        const answer = await call(b, route.method, url, body);
        const sent = Object.values(combo);
        checkNoLeak(`B ${route.method} ${url}`, answer, sent);
        if (answer.status !== 404 || !sent.some((token) => answer.text.includes(token))) {
          failures.push(`B ${route.method} ${url} ${JSON.stringify(body) ?? ''} → ${answer.status} ${answer.text.slice(0, 200)} (expected 404 naming A's token)`);
          continue;
        }
        const unknown = Object.fromEntries(params.map((name) => [name, crypto.randomUUID()]));
        const unknownAnswer = await call(b, route.method, fill(route.path, unknown) + queryOf(key), body);
        const named = sent.find((token) => answer.text.includes(token))!;
        const namedUnknown = Object.values(unknown).find((token) => unknownAnswer.text.includes(token)) ?? '';
        checkLikeUnknown(`B ${route.method} ${url}`, answer, unknownAnswer, named, namedUnknown);
      }
    }

    // 2. Lists and other reads without a path token: nothing of A, whatever token-valued filter or cursor B sends.
    for (const route of routes.filter(({ method, path }) => method === 'GET' && pathParams(path).length === 0)) {
      const key = `${route.method} ${route.path}`;
      if (excepted(key)) continue;
      checkNoLeak(`B ${key}`, await call(b, 'GET', route.path));
      const aPage = JSON.parse(before[`GET ${route.path}`]?.text ?? '{}') as { data?: Array<{ token?: string }> };
      const queryTokens = (route.operation.parameters ?? []).filter((parameter) => parameter.in === 'query' && (CURSORS.has(parameter.name) || parameter.name.endsWith('_token')));
      for (const { name } of queryTokens) {
        if (excepted(`${key} ${name}`)) continue;
        const values = CURSORS.has(name) ? aPage.data?.flatMap((item) => item.token ?? []).slice(0, 1) ?? [] : tokensOfA(FIELD_KINDS[name] ?? name, `${key} ${name}`);
        if (values.length === 0) failures.push(`${key} ${name}: A has no item in this list to use as a cursor`);
        for (const value of values) {
          const url = `${route.path}?${name}=${value}`;
          const answer = await call(b, 'GET', url);
          checkNoLeak(`B GET ${url}`, answer, [value]);
          const page = answer.status === 200 ? (JSON.parse(answer.text) as { data?: unknown[] }) : undefined;
          if (!(page?.data?.length === 0 || (answer.status === 400 && CURSORS.has(name)))) {
            failures.push(`B GET ${url} → ${answer.status} ${answer.text.slice(0, 200)} (expected an empty page${CURSORS.has(name) ? ' or 400' : ''})`);
          }
          const unknown = crypto.randomUUID();
          checkLikeUnknown(`B GET ${url}`, answer, await call(b, 'GET', `${route.path}?${name}=${unknown}`), value, unknown);
        }
      }
    }

    // 3. Token-valued body fields of writes: A's token is refused like an unknown one, B's own is accepted.
    for (const route of routes.filter(({ method }) => method === 'POST' || method === 'PATCH')) {
      const key = `${route.method} ${route.path}`;
      for (const field of tokenFields(bodySchema(route.operation))) {
        const what = `${key} ${field}`;
        if (excepted(what)) continue;
        const writeOf = VALID_WRITES[key];
        if (writeOf === undefined) {
          failures.push(`${what}: no valid write of B in VALID_WRITES to put A's token in`);
          continue;
        }
        const kind = field === 'pan' ? 'pan' : field === 'token' ? TOKEN_FIELD_KINDS[key] ?? 'token' : FIELD_KINDS[field] ?? field;
        const isList = field.endsWith('_tokens');
        const unknown = field === 'pan' ? LUHN_VALID_UNKNOWN_PAN : crypto.randomUUID();
        for (const tokenOfA of tokensOfA(kind, what)) {
          const attempt = async (value: string) => {
            const write = await writeOf(b, ownB, field);
            const url = fill(route.path, write.params ?? {});
            return { url, answer: await call(b, route.method, url, { ...write.body, [field]: isList ? [value] : value }) };
          };
          const { url, answer } = await attempt(tokenOfA);
          if (TOKEN_PER_PROGRAM.has(what)) {
            const ofA = Object.entries(before).find(([request]) => request.endsWith(`/${tokenOfA}`))?.[1];
            if (answer.status !== 200 || ofA === undefined || answer.text === ofA.text) failures.push(`B ${route.method} ${url} with A's ${field} → ${answer.status} ${answer.text.slice(0, 200)} (expected B's own new resource)`);
            checkNoLeak(`B ${route.method} ${url} ${field}`, answer, [tokenOfA], true);
            continue;
          }
          checkNoLeak(`B ${route.method} ${url} ${field}`, answer, [tokenOfA]);
          const expected = UNKNOWN_IS_422.has(what) ? 422 : 404;
          const namesIt = answer.text.includes(field === 'pan' ? 'pan' : tokenOfA);
          if (answer.status !== expected || !namesIt) failures.push(`B ${route.method} ${url} with A's ${field} → ${answer.status} ${answer.text.slice(0, 200)} (expected ${expected} naming it)`);
          else checkLikeUnknown(`B ${route.method} ${url} ${field}`, answer, (await attempt(unknown)).answer, tokenOfA, unknown);
        }
        const write = await writeOf(b, ownB, field);
        const own = await call(b, route.method, fill(route.path, write.params ?? {}), write.body);
        if (own.status !== 200) failures.push(`${what}: B's own write is refused, so the refusal of A's token proves nothing: ${own.status} ${own.text.slice(0, 200)}`);
      }
    }

    // 4. Writes that take no token: B's own settings, which must not reach A.
    for (const route of routes.filter(({ method, path, operation }) => method !== 'GET' && pathParams(path).length === 0 && tokenFields(bodySchema(operation)).length === 0)) {
      const key = `${route.method} ${route.path}`;
      if (excepted(key)) continue;
      const bodyOf = WRITES_WITHOUT_TOKENS[key];
      if (bodyOf === undefined) {
        failures.push(`${key}: neither a path token nor a token field, and no body in WRITES_WITHOUT_TOKENS`);
        continue;
      }
      const answer = await call(b, route.method, route.path, await bodyOf(b));
      checkNoLeak(`B ${key}`, answer);
      if (answer.status !== 200) failures.push(`B ${key} → ${answer.status} ${answer.text.slice(0, 200)}`);
    }

    const after = await snapshotOfA();
    for (const [request, answer] of Object.entries(before)) {
      if (JSON.stringify(after[request]) !== JSON.stringify(answer)) failures.push(`A's ${request} changed: ${answer.text.slice(0, 300)} → ${after[request]?.text.slice(0, 300)}`);
    }
    const stale = Object.keys(EXCEPTIONS).filter((exception) => !usedExceptions.has(exception));
    expect(stale, 'exceptions that match no operation or field any more').toEqual([]);
    expect(failures).toEqual([]);
  }, 120_000);
});
