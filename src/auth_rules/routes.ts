import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { commit } from '../http/idempotency.js';
import { ErrorBody, ListOf, TokenParams, Type } from '../http/schemas.js';
import { AuthRule, CreateAuthRuleBody, DraftAuthRuleBody, ListAuthRulesQuery, Report, ReportQuery, UpdateAuthRuleBody } from './schemas.js';
import * as service from './service.js';

const tags = ['Auth Rules'];
const params = TokenParams('auth_rule_token');

export const authRuleRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app.deps;

  app.post(
    '/v2/auth_rules',
    {
      schema: {
        summary: 'Create an Auth Rule',
        description:
          'Account-level (account_tokens), card-level (card_tokens) or program-level (program_level: true, excluded_card_tokens). ' +
          'The rule starts ACTIVE with its parameters as a draft version, evaluated in shadow until promoted.',
        tags,
        body: CreateAuthRuleBody,
        response: { 200: AuthRule },
      },
    },
    async (request, reply) => commit(request, reply, (tx) => service.create(tx, request.scope, request.body)),
  );

  app.get(
    '/v2/auth_rules/:auth_rule_token',
    { schema: { summary: 'Get an Auth Rule', tags, params, response: { 200: AuthRule } } },
    async (request) => db.snapshot((exec) => service.get(exec, request.scope, request.params.auth_rule_token)),
  );

  app.get(
    '/v2/auth_rules',
    {
      schema: {
        summary: 'List Auth Rules',
        description:
          'Newest first. account_token / business_account_token / card_token: rules bound to that account, business account or card. ' +
          'scope ACCOUNT / BUSINESS_ACCOUNT: rules with account_tokens / business_account_tokens (a rule with both is under both).',
        tags,
        querystring: ListAuthRulesQuery,
        response: { 200: ListOf(AuthRule) },
      },
    },
    async (request) => db.snapshot((exec) => service.list(exec, request.scope, request.query)),
  );

  app.patch(
    '/v2/auth_rules/:auth_rule_token',
    {
      schema: {
        summary: 'Update an Auth Rule',
        description:
          'One of three variants: account-level {account_tokens}, card-level {card_tokens}, program-level ' +
          '{program_level, excluded_card_tokens}, each with name and state (INACTIVE only). A supplied scope field replaces ' +
          'the stored association; mixing variants is a 400.',
        tags,
        params,
        body: UpdateAuthRuleBody,
        response: { 200: AuthRule },
      },
    },
    async (request, reply) => commit(request, reply, (tx) => service.update(db, tx, request.scope, request.params.auth_rule_token, request.body)),
  );

  app.delete(
    '/v2/auth_rules/:auth_rule_token',
    { schema: { summary: 'Delete an Auth Rule', tags, params, response: { 204: Type.Null() } } },
    async (request, reply) => {
      reply.code(204);
      return commit(request, reply, (tx) => service.remove(db, tx, request.scope, request.params.auth_rule_token));
    },
  );

  app.post(
    '/v2/auth_rules/:auth_rule_token/draft',
    {
      schema: {
        summary: 'Set or clear the draft version of an Auth Rule',
        description: 'New parameters become a draft version evaluated in shadow; parameters null removes the draft.',
        tags,
        params,
        body: DraftAuthRuleBody,
        response: { 200: AuthRule },
      },
    },
    async (request, reply) => commit(request, reply, (tx) => service.draft(db, tx, request.scope, request.params.auth_rule_token, request.body)),
  );

  app.post(
    '/v2/auth_rules/:auth_rule_token/promote',
    {
      schema: {
        summary: 'Promote the draft version of an Auth Rule',
        description: 'The draft becomes the current, enforced version and the rule becomes ACTIVE. No draft: 422.',
        tags,
        params,
        response: { 200: AuthRule },
      },
    },
    async (request, reply) => commit(request, reply, (tx) => service.promote(db, tx, request.scope, request.params.auth_rule_token)),
  );

  app.get(
    '/v2/auth_rules/:auth_rule_token/report',
    {
      schema: {
        summary: 'Performance report of an Auth Rule',
        description:
          'Daily statistics of the current and draft versions for begin..end (UTC dates, inclusive). Limits on the program clock: ' +
          'data through the previous UTC day, the past 3 months only, at most 1 month (422 otherwise).',
        tags,
        params,
        querystring: ReportQuery,
        response: { 200: Report, 422: ErrorBody },
      },
    },
    async (request) => db.snapshot((exec) => service.report(exec, request.scope, request.params.auth_rule_token, request.query)),
  );
};
