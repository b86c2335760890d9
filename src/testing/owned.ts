/**
 * Real resources of one program, of every kind the API serves, and their tokens by the name of the
 * path parameter (or body field) that takes them: what the robustness and isolation tests send.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type Lithic from 'lithic';
import { conditionalBlock, createRule } from './auth_rules.js';
import { enroll, kybBody, kycBody, kycExemptBody } from './enrollment.js';
import { bookTransfer, fund, manualBankAccount, newAccount } from './money.js';
import { authorize, cardOnOwnAccount, type Card } from './transactions.js';

export interface Owned {
  /** Tokens by path parameter name (`card_token`, `financial_account_token`…), plus `pan` and `business_account_token`. */
  tokens: Record<string, string[]>;
  operating: string;
  card: Card;
  /** A 3DS authentication still waiting for the cardholder's challenge. */
  pendingChallenge: string;
}

/** The same 3DS simulation body as the 3DS tests: a merchant name with CHALLENGE asks for a challenge. */
export function threeDsBody(pan: string, merchantName = 'GROCER') {
  return { pan, merchant: { id: 'M-1', country: 'USA', mcc: '5411', name: merchantName }, transaction: { amount: 2_500, currency: 'USD' } };
}

/** A webhook receiver that accepts everything, for the process's lifetime (it keeps no test alive). */
let acceptingReceiver: Promise<string> | undefined;
function acceptingReceiverUrl(): Promise<string> {
  acceptingReceiver ??= new Promise((resolve) => {
    const server = http.createServer((request, response) => request.resume().on('end', () => response.end('ok')));
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/owned`));
    server.unref();
  });
  return acceptingReceiver;
}

/**
 * An event subscription and an (example) event delivered to it, once its attempt succeeded, so
 * that nothing of them changes afterwards.
 */
async function deliveredEvent(client: Lithic): Promise<{ subscription: string; event: string }> {
  const subscription = await client.events.subscriptions.create({ url: await acceptingReceiverUrl() });
  await client.events.subscriptions.sendSimulatedExample(subscription.token);
  for (;;) {
    const [attempt] = (await client.events.subscriptions.listAttempts(subscription.token)).data;
    if (attempt?.status === 'SUCCESS') return { subscription: subscription.token, event: attempt.event_token };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Creates, in the client's program, account holders of each workflow family (KYC, KYB, KYC_EXEMPT),
 * a card on its own account with a transaction, an Auth Rule on it, money moved on the operating
 * account (management operation, book transfer, external payment), an external bank account and
 * two 3DS authentications (one PENDING_CHALLENGE), an event subscription and an example event
 * delivered to it, and returns their tokens (with a few of the events all that recorded).
 */
export async function ownedResources(client: Lithic): Promise<Owned> {
  const existing = (await client.financialAccounts.list()).data;
  const operating = existing.find((account) => account.type === 'OPERATING')?.token ?? (await newAccount(client));
  const [kyc, kyb, exempt] = await Promise.all([kycBody(), kybBody(), kycExemptBody()].map((body) => enroll(client, body)));
  const holders = [kyc, kyb, exempt].map((holder) => holder!);
  const card = await cardOnOwnAccount(client);
  const transaction = await authorize(client, card, 100);
  const rule = await createRule(client, conditionalBlock([{ attribute: 'MCC', operation: 'IS_ONE_OF', value: ['7995'] }], { card_tokens: [card.token] }));
  const bankAccount = await client.externalBankAccounts.create(manualBankAccount(operating) as never);
  await fund(client, operating, 100_000);
  const operation = (await client.managementOperations.list({ financial_account_token: operating })).data[0]!;
  const transfer = await bookTransfer(client, operating, card.funding.token, 1_000);
  const now = (await client.get<unknown, { now: string }>('/v1/simulate/clock')).now;
  const payment = await client.externalPayments.create({ amount: 500, category: 'EXTERNAL_WIRE', effective_date: now.slice(0, 10), financial_account_token: operating, payment_type: 'DEPOSIT' });
  const financialTransactions = (await client.financialAccounts.financialTransactions.list(operating)).data;
  const authenticated = await client.threeDS.authentication.simulate(threeDsBody(card.pan));
  const challenged = await client.threeDS.authentication.simulate(threeDsBody(card.pan, 'SHOP CHALLENGE'));
  const financialAccounts = (await client.financialAccounts.list()).data.map((account) => account.token);
  const events = (await client.events.list({ page_size: 3 })).data.map((event) => event.token);
  const delivered = await deliveredEvent(client);
  return {
    operating,
    card,
    pendingChallenge: challenged.token as string,
    tokens: {
      financial_account_token: [operating, ...financialAccounts.filter((token) => token !== operating)],
      financial_transaction_token: financialTransactions.map((transaction) => transaction.token),
      account_holder_token: holders.map((holder) => holder.token),
      account_token: [card.account_token, ...holders.map((holder) => holder.account_token)],
      business_account_token: [kyb!.account_token],
      card_token: [card.token],
      card_program_token: [card.card_program_token as string],
      transaction_token: [transaction],
      auth_rule_token: [rule.token],
      external_bank_account_token: [bankAccount.token],
      management_operation_token: [operation.token],
      book_transfer_token: [transfer.token],
      external_payment_token: [payment.token],
      three_ds_authentication_token: [authenticated.token as string, challenged.token as string],
      event_subscription_token: [delivered.subscription],
      event_token: [...events, delivered.event],
      pan: [card.pan],
    },
  };
}
