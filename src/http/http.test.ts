/** The HTTP contract shared by every route: error shape, 404/413/400 handling, request ids, OpenAPI. */
import crypto from 'node:crypto';
import { once } from 'node:events';
import net from 'node:net';
import { Validator } from '@seriousme/openapi-schema-validator';
import { expect, it } from 'vitest';
import { expectErrorResponse } from '../testing/api-errors.js';
import { describeWithDb, startTestServer, useTestServer } from '../testing/harness.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Calls the SDK declares void: a 200 with no body. */
const VOID_OPERATIONS = [
  'POST /v1/three_ds_decisioning/challenge_response',
  'POST /v1/three_ds_decisioning/simulate/enter_otp',
  'POST /v1/three_ds_decisioning/secret/rotate',
  'POST /v1/event_subscriptions/{event_subscription_token}/secret/rotate',
  'POST /v1/event_subscriptions/{event_subscription_token}/recover',
  'POST /v1/event_subscriptions/{event_subscription_token}/replay_missing',
  'POST /v1/events/{event_token}/event_subscriptions/{event_subscription_token}/resend',
  'POST /v1/simulate/event_subscriptions/{event_subscription_token}/send_example',
];

/**
 * Sends raw HTTP on a new connection and reads the whole answer: for what no HTTP client sends. Each
 * string is written as is; each function is awaited between the writes.
 */
async function rawExchange(url: string, ...steps: Array<string | (() => Promise<unknown>)>): Promise<Response> {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  const closed = once(socket, 'close');
  await once(socket, 'connect');
  for (const step of steps) {
    if (typeof step === 'string') socket.write(step);
    else await step();
  }
  await closed;
  const [head = '', body = ''] = received.split('\r\n\r\n');
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const headers = new Headers(headerLines.map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()] as [string, string]));
  return new Response(body, { status: Number(statusLine.split(' ')[1]), headers });
}

describeWithDb('HTTP layer', () => {
  const context = useTestServer();


  it('answers unknown routes and methods with a JSON 404', async () => {
    await expectErrorResponse(await context.server.request('GET', '/v1/nothing-here', { apiKey: context.program.apiKey }), 404, /No route for GET \/v1\/nothing-here/);
    await expectErrorResponse(await context.server.request('DELETE', '/v1/financial_accounts', { apiKey: context.program.apiKey }), 404, /No route/);
    await expectErrorResponse(await context.server.request('GET', '/v1/nothing-here'), 404, /No route/);
    // A card number in the path is masked, as in the logs.
    await expectErrorResponse(await context.server.request('GET', '/v1/nothing-here/4111111111111111'), 404, /No route for GET \/v1\/nothing-here\/\*{12}1111$/);
  });

  it('answers every error status of the contract in the one shape, with the request id header', async () => {
    const { apiKey } = context.program;
    await expectErrorResponse(await context.server.request('POST', '/v1/financial_accounts', { apiKey, body: '{' }), 400, /not valid JSON/);
    await expectErrorResponse(await context.server.request('GET', '/v1/status'), 401, /provide API key/);
    await expectErrorResponse(await context.server.request('GET', '/v1/status', { apiKey: 'cw_unknown-key-0000' }), 401, /Could not find API key/);
    await expectErrorResponse(await context.server.request('GET', `/v1/financial_accounts/${crypto.randomUUID()}`, { apiKey }), 404, /not found/);
    const otp = { token: crypto.randomUUID(), otp: '123456' };
    await expectErrorResponse(await context.server.request('POST', '/v1/three_ds_decisioning/simulate/enter_otp', { apiKey, body: otp }), 422, /token/);
  });

  it('answers a path it cannot decode, and a path parameter of any length, in the one error shape', async () => {
    const { apiKey } = context.program;
    await expectErrorResponse(await context.server.request('GET', '/v1/cards/%E0%A4%A', { apiKey }), 400, /^path: /);
    await expectErrorResponse(await context.server.request('GET', '/v1/nothing-here/%', {}), 400, /^path: /);
    for (const length of [101, 5000]) {
      await expectErrorResponse(await context.server.request('GET', `/v1/cards/${'a'.repeat(length)}`, { apiKey }), 400, /^card_token: must be a valid uuid/);
    }
    await expectErrorResponse(await context.server.request('GET', `/v1/cards/${'a'.repeat(101)}`), 401, /provide API key/);
  });

  it('answers a request the HTTP parser refuses in the one error shape', async () => {
    const badLength = `GET /v1/status HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n`;
    await expectErrorResponse(await rawExchange(context.server.url, badLength), 400, /^HTTP: /);
    const unknownMethod = `BREW /v1/status HTTP/1.1\r\nHost: x\r\n\r\n`;
    await expectErrorResponse(await rawExchange(context.server.url, unknownMethod), 400, /^HTTP: /);
    const hugeHeader = `GET /v1/status HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`;
    await expectErrorResponse(await rawExchange(context.server.url, hugeHeader), 431, /^HTTP: the request headers are larger than/);
  });

  it('answers a request that arrives while the server shuts down with a 503 in the one error shape', async () => {
    const closing = await startTestServer();
    const { apiKey } = await closing.newProgram();
    let closed: Promise<void> | undefined;
    const pause = () => new Promise((resolve) => setTimeout(resolve, 50));
    // The request has begun before the shutdown (its connection is not idle, so it is not cut), and ends after it.
    const response = await rawExchange(closing.url, 'GET /v1/status HTTP/1.1\r\nHost: x\r\n', pause, async () => {
      closed = closing.close();
      await pause();
    }, `Authorization: ${apiKey}\r\n\r\n`);
    await closed;
    await expectErrorResponse(response, 503, /shutting down/);
  });

  it('masks a card number a client used as a field name in the 400 naming it', async () => {
    const { apiKey } = context.program;
    const cases: Array<[string, string, string | undefined, string]> = [
      ['POST', '/v1/financial_accounts', '{"type":"OPERATING","nickname":"x","4111111111111111":1}', '[************1111]: is not a recognised field'],
      ['GET', '/v1/financial_accounts?4111111111111111=1', undefined, '[************1111]: is not a recognised field'],
      ['POST', '/v1/financial_accounts', '{"type":"OPERATING","nickname":"x","card 4111111111111111":"\\u0000"}', 'card ************1111: must not contain the NUL character (U+0000)'],
    ];
    for (const [method, path, body, message] of cases) {
      const response = await context.server.request(method, path, { apiKey, ...(body ? { body } : {}) });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { message: string }).message).toBe(message);
    }
  });

  it('reads tokens case-insensitively in paths, queries and token fields of a body, and leaves other text alone', async () => {
    const { client } = context.program;
    const from = await client.financialAccounts.create({ nickname: 'UPPER FROM', type: 'OPERATING' });
    const to = await client.financialAccounts.create({ nickname: 'upper to', type: 'OPERATING' });
    const upper = (token: string) => token.toUpperCase();
    expect(await client.financialAccounts.retrieve(upper(from.token))).toEqual(from);
    const page = (await client.get('/v1/financial_accounts', { query: { ending_before: upper(from.token) } })) as { data: Array<{ token: string }> };
    expect(page.data.map((account) => account.token)).toContain(to.token);
    const memo = upper(crypto.randomUUID());
    const transfer = await client.bookTransfers.create({
      amount: 1,
      category: 'TRANSFER',
      type: 'TRANSFER',
      subtype: 'case',
      memo,
      from_financial_account_token: upper(from.token),
      to_financial_account_token: upper(to.token),
    });
    expect(transfer).toMatchObject({ from_financial_account_token: from.token, to_financial_account_token: to.token });
    expect(transfer.events[0]?.memo).toBe(memo);
    expect((await client.financialAccounts.retrieve(`urn:uuid:${from.token}`).catch((caught: unknown) => caught)) as Error).toHaveProperty('status', 400);
  });

  it('answers malformed JSON with 400', async () => {
    const response = await context.server.request('POST', '/v1/financial_accounts', { apiKey: context.program.apiKey, body: '{"nickname": "x",' });
    await expectErrorResponse(response, 400, /not valid JSON/);
  });

  it('answers a body that is not an object with 400', async () => {
    for (const body of ['[]', '"text"', '42', 'null']) {
      const response = await context.server.request('POST', '/v1/financial_accounts', { apiKey: context.program.apiKey, body });
      await expectErrorResponse(response, 400, /body|must be object|not valid JSON/);
    }
  });

  it('answers a body sent to an operation that takes none with 400 (its parameters would be ignored), but takes no body or {}', async () => {
    const unknown = crypto.randomUUID();
    for (const path of [`/v2/auth_rules/${unknown}/promote`, `/v1/event_subscriptions/${unknown}/recover`, `/v1/transactions/${unknown}/expire_authorization`]) {
      for (const body of ['{"begin": "2030-01-01T00:00:00Z"}', '[]', 'null', '7']) {
        const response = await context.server.request('POST', path, { apiKey: context.program.apiKey, body });
        await expectErrorResponse(response, 400, /^body: this operation takes no body/);
      }
      for (const body of [undefined, '', '{}']) {
        const response = await context.server.request('POST', path, { apiKey: context.program.apiKey, ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } }) });
        expect(response.status).toBe(404);
      }
    }
    const response = await context.server.request('DELETE', `/v2/auth_rules/${unknown}`, { apiKey: context.program.apiKey, body: '{"force": true}' });
    await expectErrorResponse(response, 400, /^body: this operation takes no body/);
  });

  it('answers a query parameter sent to an operation that takes none with 400 naming it (it would be ignored), and changes nothing', async () => {
    const { client, apiKey } = context.program;
    const account = (await client.accounts.list()).data[0];
    if (account === undefined) throw new Error('a program has its default account');
    const patch = await context.server.request('PATCH', `/v1/accounts/${account.token}?state=CLOSED`, { apiKey, body: '{"daily_spend_limit": 1}' });
    await expectErrorResponse(patch, 400, /^state: is not a recognised field \(this operation takes no query parameters\)$/);
    expect(await client.accounts.retrieve(account.token)).toEqual(account);
    const subscription = await client.events.subscriptions.create({ url: 'https://example.com/hooks' });
    const secret = await client.events.subscriptions.retrieveSecret(subscription.token);
    for (const [method, path] of [
      ['GET', `/v1/accounts/${account.token}?with_holder=true`],
      ['POST', `/v1/event_subscriptions/${subscription.token}/secret/rotate?secret=x`],
      ['GET', `/v1/event_subscriptions/${subscription.token}?with_content=true`],
    ] as const) {
      await expectErrorResponse(await context.server.request(method, path, { apiKey }), 400, /^(with_holder|secret|with_content): is not a recognised field/);
    }
    expect(await client.events.subscriptions.retrieveSecret(subscription.token)).toEqual(secret);
  });

  it('answers a body that is not an object with 400 where the body is optional too (no body at all is an empty one)', async () => {
    const { token } = await context.program.client.financialAccounts.create({ nickname: 'kept', type: 'OPERATING' });
    for (const body of ['null', '[]', '7']) {
      const response = await context.server.request('PATCH', `/v1/financial_accounts/${token}`, { apiKey: context.program.apiKey, body });
      await expectErrorResponse(response, 400, /body: must be object/);
    }
    const empty = await context.server.request('PATCH', `/v1/financial_accounts/${token}`, { apiKey: context.program.apiKey, body: '', headers: { 'content-type': 'application/json' } });
    expect(empty.status).toBe(200);
    expect((await context.program.client.financialAccounts.retrieve(token)).nickname).toBe('kept');
  });

  it('answers an empty JSON body where a body is required with 400', async () => {
    const response = await context.server.request('POST', '/v1/financial_accounts', { apiKey: context.program.apiKey, body: '' , headers: { 'content-type': 'application/json' } });
    await expectErrorResponse(response, 400, /body/);
  });

  it('answers bodies over 1 MiB with a JSON 413', async () => {
    const response = await context.server.request('POST', '/v1/financial_accounts', {
      apiKey: context.program.apiKey,
      body: JSON.stringify({ nickname: 'x'.repeat(1024 * 1024 + 10), type: 'OPERATING' }),
    });
    await expectErrorResponse(response, 413, /1 MiB/);
  });

  it('answers a body without a JSON content type with 400 naming the header', async () => {
    const send = (headers: Record<string, string>) =>
      fetch(`${context.server.url}/v1/financial_accounts`, {
        method: 'POST',
        headers: { authorization: context.program.apiKey, ...headers },
        body: new TextEncoder().encode(JSON.stringify({ nickname: 'typeless', type: 'OPERATING' })),
      });
    await expectErrorResponse(await send({}), 400, /^Content-Type: must be application\/json$/);
    await expectErrorResponse(await send({ 'content-type': 'application/x-www-form-urlencoded' }), 400, /^Content-Type: must be application\/json$/);
    // What fetch sends for a string body.
    await expectErrorResponse(await send({ 'content-type': 'text/plain;charset=UTF-8' }), 400, /^Content-Type: must be application\/json$/);
    const accounts = await context.program.client.financialAccounts.list();
    expect(accounts.data.filter((account) => account.nickname === 'typeless')).toEqual([]);
  });

  it('reads JSON as UTF-8 whatever charset is declared: bytes that are not UTF-8 are a 400 and store nothing', async () => {
    const send = (bytes: Uint8Array, contentType: string) =>
      fetch(`${context.server.url}/v1/financial_accounts`, { method: 'POST', headers: { authorization: context.program.apiKey, 'content-type': contentType }, body: bytes });
    const latin1 = Buffer.from('{"nickname": "caf\u00e9 latin", "type": "OPERATING"}', 'latin1');
    await expectErrorResponse(await send(latin1, 'application/json'), 400, /^Request body is not valid UTF-8$/);
    await expectErrorResponse(await send(latin1, 'application/json; charset=iso-8859-1'), 400, /^Request body is not valid UTF-8$/);
    const utf8 = (nickname: string) => Buffer.from(JSON.stringify({ nickname, type: 'OPERATING' }), 'utf8');
    for (const [contentType, nickname] of [
      ['application/json; charset=utf-8', 'caf\u00e9 utf-8'],
      ['application/json;charset=UTF-8', 'caf\u00e9 UTF-8'],
      // The charset parameter has no effect (RFC 8259 §11): an ASCII body so declared is served.
      ['application/json; charset=ISO-8859-1', 'ascii declared iso'],
      ['application/json; charset=us-ascii', 'ascii declared us-ascii'],
    ]) {
      const response = await send(utf8(nickname as string), contentType as string);
      expect(response.status, contentType).toBe(200);
      expect(((await response.json()) as { nickname: string }).nickname).toBe(nickname);
    }
    const nicknames = (await context.program.client.financialAccounts.list()).data.map((account) => account.nickname);
    expect(nicknames.filter((nickname) => nickname?.includes('latin'))).toEqual([]);
  });

  it.each([
    ['{"__proto__": {"admin": true}, "nickname": "x", "type": "OPERATING"}', '__proto__'],
    ['{"nickname": "x", "type": "OPERATING", "constructor": {"prototype": {"admin": true}}}', 'constructor'],
    ['{"parameters": {"conditions": [{"__proto__": 1}]}}', 'parameters.conditions[0].__proto__'],
  ])('answers a body with a key JavaScript reserves (%s) with 400 naming it', async (body, path) => {
    const response = await context.server.request('POST', '/v1/financial_accounts', { apiKey: context.program.apiKey, body });
    await expectErrorResponse(response, 400, new RegExp(`^${path.replace(/[.[\]]/g, '\\$&')}: is not an allowed key`));
  });

  it('puts a request id on every response, also on success', async () => {
    const first = await context.server.request('GET', '/v1/status', { apiKey: context.program.apiKey });
    const second = await context.server.request('GET', '/v1/status', { apiKey: context.program.apiKey });
    expect(first.headers.get('x-request-id')).toMatch(UUID);
    expect(first.headers.get('x-request-id')).not.toBe(second.headers.get('x-request-id'));
    expect(await first.json()).toEqual({ message: 'OK' });
  });

  it('logs one completion line per request with its id, method, path (no query), status and duration', async () => {
    const token = '00000000-0000-4000-8000-000000000000';
    const response = await context.server.request('GET', `/v1/financial_accounts?page_size=1&ending_before=${token}`, { apiKey: context.program.apiKey });
    expect(response.status).toBe(400);
    const id = response.headers.get('x-request-id');
    const lines = context.server.logs().trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    const completed = lines.find((line) => line.reqId === id && line.msg === 'request completed');
    expect(completed).toMatchObject({ req: { method: 'GET', url: '/v1/financial_accounts' }, res: { statusCode: 400 } });
    expect(completed?.responseTime).toEqual(expect.any(Number));
  });

  it('logs a completion line for a path it cannot decode too', async () => {
    const response = await context.server.request('GET', '/v1/%E0%A4%A', { apiKey: context.program.apiKey });
    expect(response.status).toBe(400);
    const id = response.headers.get('x-request-id');
    const lines = context.server.logs().trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    const completed = lines.find((line) => line.reqId === id && line.msg === 'request completed');
    expect(completed).toMatchObject({ req: { method: 'GET', url: '/v1/%E0%A4%A' }, res: { statusCode: 400 } });
  });

  it('serves a valid OpenAPI 3.1 document generated from the route schemas, without a key', async () => {
    const response = await context.server.request('GET', '/openapi.json');
    expect(response.status).toBe(200);
    const document = (await response.json()) as { openapi: string; paths: Record<string, Record<string, { responses: object }>> };
    expect(document.openapi).toBe('3.1.0');
    const validator = new Validator();
    const result = await validator.validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/v1/status', '/v1/financial_accounts', '/v1/financial_accounts/{financial_account_token}', '/v1/simulate/clock']));
    const create = document.paths['/v1/financial_accounts']?.post;
    expect(create?.responses).toHaveProperty('200');
    expect(create?.responses).toHaveProperty('4XX');
    expect(JSON.stringify(create)).toContain('nickname');
  });

  it('documents every operation: a unique operationId, a summary, the key, its request, its answer and its errors in the one shape', async () => {
    type Operation = {
      operationId?: string;
      summary?: string;
      parameters?: Array<{ in: string }>;
      requestBody?: object;
      responses: Record<string, { content?: { 'application/json'?: { schema?: { required?: string[] } } } }>;
    };
    const document = (await (await context.server.request('GET', '/openapi.json')).json()) as {
      paths: Record<string, Record<string, Operation>>;
      security: unknown;
      components: { securitySchemes: unknown };
    };
    expect(document.components.securitySchemes).toEqual({ apiKey: { type: 'apiKey', in: 'header', name: 'Authorization' } });
    expect(document.security).toEqual([{ apiKey: [] }]);
    const operationIds = new Set<string>();
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const name = `${method.toUpperCase()} ${path}`;
        expect(operation.operationId, name).toMatch(/^[a-z][A-Za-z0-9]+$/);
        expect(operationIds.has(operation.operationId as string), `${name}: operationId ${operation.operationId} is taken`).toBe(false);
        operationIds.add(operation.operationId as string);
        expect(operation.summary, name).toBeTruthy();
        const emptyBody = method === 'delete' || VOID_OPERATIONS.includes(name);
        const success = emptyBody ? operation.responses[method === 'delete' ? '204' : '200'] : operation.responses['200']?.content?.['application/json']?.schema;
        expect(success, name).toBeDefined();
        if (emptyBody) expect(operation.responses[method === 'delete' ? '204' : '200']?.content, name).toBeUndefined();
        const takesInput = operation.parameters !== undefined || operation.requestBody !== undefined;
        const expected = ['401', '4XX', '5XX'];
        if (takesInput || method === 'post') expected.push('400');
        if (operation.parameters?.some((parameter) => parameter.in === 'path') || operation.requestBody !== undefined) expected.push('404');
        if (method === 'post') expected.push('409');
        if (method !== 'get') expected.push('422');
        expect(Object.keys(operation.responses), name).toEqual(expect.arrayContaining(expected));
        for (const status of Object.keys(operation.responses).filter((code) => /^[45]/.test(code))) {
          expect(operation.responses[status]?.content?.['application/json']?.schema?.required, `${name} ${status}`).toEqual(['debugging_request_id', 'message']);
        }
      }
    }
    // A GET whose rules can refuse it in the current state declares its 422 too.
    expect(document.paths['/v2/auth_rules/{auth_rule_token}/report']?.get?.responses).toHaveProperty('422');
    expect(document.paths['/v1/cards']?.post?.requestBody).toBeDefined();
  });
});
