/**
 * Validation of a rule's `parameters` (reference 01). The shape depends on the rule's type and the
 * attributes on its event stream, which a JSON schema on the route could only express as a union
 * whose errors name no useful path; so the route accepts any object and this module checks it
 * completely, failing with a 400 that names the exact path of the first bad value, e.g.
 * `parameters.conditions[1].value: must be an array of strings`.
 *
 * What comes out is the parameters as stored and returned: exactly the fields given (unknown fields
 * are refused), typed.
 */
import { InvalidRequestError } from '../errors.js';
import {
  AUTHORIZATION_ACTION_ATTRIBUTES,
  AUTHORIZATION_ATTRIBUTES,
  LIST_OPERATIONS,
  OPERATIONS,
  operationsFor,
  REGEX_OPERATIONS,
  THREE_DS_ATTRIBUTES,
  type AttributeSpec,
  type AuthRuleType,
  type EventStream,
  type Operation,
} from './attributes.js';
import { patternProblem } from './patterns.js';

export interface Condition {
  attribute: string;
  operation: Operation;
  value: string | number | string[];
}
export interface ConditionalBlockParameters {
  conditions: Condition[];
}
export interface ConditionalActionParameters {
  action: 'DECLINE' | 'CHALLENGE';
  conditions: Condition[];
}
type FixedPeriodName = 'DAY' | 'WEEK' | 'MONTH' | 'YEAR';
export type VelocityPeriod =
  | number
  | FixedPeriodName
  | { type: 'CUSTOM'; duration: number }
  | { type: 'DAY' }
  | { type: 'WEEK'; day_of_week?: number }
  | { type: 'MONTH'; day_of_month?: number }
  | { type: 'YEAR'; month?: number; day_of_month?: number };
export interface VelocityFiltersParameters {
  include_mccs?: string[] | null;
  exclude_mccs?: string[] | null;
  include_countries?: string[] | null;
  exclude_countries?: string[] | null;
  include_pan_entry_modes?: string[] | null;
}
export interface VelocityLimitParameters {
  scope: 'CARD' | 'ACCOUNT';
  period: VelocityPeriod;
  filters: VelocityFiltersParameters;
  limit_amount?: number | null;
  limit_count?: number | null;
}
interface MerchantLockEntry {
  merchant_id?: string;
  descriptor?: string;
  comment?: string;
}
export interface MerchantLockParameters {
  merchants: MerchantLockEntry[];
}
export type AuthRuleParameters = ConditionalBlockParameters | ConditionalActionParameters | VelocityLimitParameters | MerchantLockParameters;

const MAX_CONDITIONS = 100;
const MAX_LIST_VALUES = 1000;
const MAX_MERCHANTS = 1000;
const MAX_TEXT_LENGTH = 1024;
/** Trailing windows: 10 seconds to 31 days (reference 01). */
const MIN_TRAILING_SECONDS = 10;
const MAX_TRAILING_SECONDS = 2_678_400;
const FIXED_PERIODS = ['DAY', 'WEEK', 'MONTH', 'YEAR'] as const;
/** Days in each month of a leap year: a YEAR window may start on Feb 29 (Feb 28 in other years). */
const MAX_DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

// ---- small typed readers that fail with the value's path ----------------------------------------

function fail(path: string, message: string): never {
  throw new InvalidRequestError(`${path}: ${message}`);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

/** An object with exactly the allowed fields and at least the required ones. */
function readObject(value: unknown, path: string, required: readonly string[], optional: readonly string[] = []): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) fail(path, `must be an object, not ${describe(value)}`);
  const record = value as Record<string, unknown>;
  const allowed = new Set([...required, ...optional]);
  const unknown = Object.keys(record).find((key) => !allowed.has(key));
  if (unknown !== undefined) fail(`${path}.${unknown}`, `is not a recognised field (expected ${[...allowed].join(', ')})`);
  const missing = required.find((key) => record[key] === undefined);
  if (missing !== undefined) fail(`${path}.${missing}`, 'is required');
  return record;
}

function readOneOf<const T extends readonly string[]>(value: unknown, path: string, values: T): T[number] {
  if (typeof value !== 'string' || !values.includes(value)) fail(path, `must be one of ${values.join(', ')}`);
  return value as T[number];
}

/** An integer in [minimum, maximum]; both within the safe integers, so a larger integer is out of range (not "not an integer"). */
function readInteger(value: unknown, path: string, minimum: number, maximum: number = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) fail(path, `must be an integer, not ${describe(value)}`);
  if (value < minimum || value > maximum) fail(path, `must be between ${minimum} and ${maximum}`);
  return value;
}

/** A string of at most MAX_TEXT_LENGTH characters; empty only where `mayBeEmpty` (a free comment). */
function readText(value: unknown, path: string, mayBeEmpty = false): string {
  if (typeof value !== 'string') fail(path, `must be a string, not ${describe(value)}`);
  if (value.length === 0 && !mayBeEmpty) fail(path, 'must not be empty');
  if (value.length > MAX_TEXT_LENGTH) fail(path, `must be at most ${MAX_TEXT_LENGTH} characters`);
  return value;
}

/** A non-empty array of at most `max` items, each read by `item`. */
function readArray<T>(value: unknown, path: string, max: number, item: (entry: unknown, itemPath: string) => T): T[] {
  if (!Array.isArray(value)) fail(path, `must be an array, not ${describe(value)}`);
  if (value.length === 0) fail(path, 'must not be empty');
  if (value.length > max) fail(path, `must have at most ${max} items`);
  return value.map((entry, index) => item(entry, `${path}[${index}]`));
}

/** A string checked against an attribute's value format or enum, for list operations and filters. */
function readListValue(spec: AttributeSpec, entry: unknown, path: string): string {
  const text = readText(entry, path);
  if (spec.kind === 'enum' && !spec.values.includes(text)) fail(path, `must be one of ${spec.values.join(', ')}`);
  if (spec.kind === 'text' && spec.format && !spec.format.pattern.test(text)) fail(path, `must be ${spec.format.description}`);
  return text;
}

/** A regular expression that runs in linear time (patterns.ts). */
function readPattern(value: unknown, path: string): string {
  const text = readText(value, path);
  const problem = patternProblem(text);
  if (problem !== null) fail(path, problem);
  return text;
}

// ---- conditions ---------------------------------------------------------------------------------

function readConditionValue(spec: AttributeSpec, operation: Operation, value: unknown, path: string): Condition['value'] {
  if ((LIST_OPERATIONS as readonly string[]).includes(operation)) {
    if (!Array.isArray(value)) fail(path, `must be an array of strings for ${operation}, not ${describe(value)}`);
    return readArray(value, path, MAX_LIST_VALUES, (entry, entryPath) => readListValue(spec, entry, entryPath));
  }
  if ((REGEX_OPERATIONS as readonly string[]).includes(operation)) return readPattern(value, path);
  const integer = spec as { minimum?: number; maximum?: number };
  return readInteger(value, path, integer.minimum ?? Number.MIN_SAFE_INTEGER, integer.maximum);
}

function readCondition(raw: unknown, path: string, attributes: Readonly<Record<string, AttributeSpec>>, stream: EventStream): Condition {
  const record = readObject(raw, path, ['attribute', 'operation', 'value']);
  const names = Object.keys(attributes);
  if (typeof record.attribute !== 'string' || !names.includes(record.attribute)) {
    fail(`${path}.attribute`, `must be one of ${names.join(', ')} (the attributes of this rule type on the ${stream} stream)`);
  }
  const attribute = record.attribute;
  const spec = attributes[attribute] as AttributeSpec;
  const operation = readOneOf(record.operation, `${path}.operation`, OPERATIONS);
  const allowed = operationsFor(spec);
  if (!allowed.includes(operation)) fail(`${path}.operation`, `${operation} does not apply to ${attribute}; use one of ${allowed.join(', ')}`);
  return { attribute, operation, value: readConditionValue(spec, operation, record.value, `${path}.value`) };
}

function readConditions(value: unknown, path: string, attributes: Readonly<Record<string, AttributeSpec>>, stream: EventStream): Condition[] {
  return readArray(value, path, MAX_CONDITIONS, (entry, entryPath) => readCondition(entry, entryPath, attributes, stream));
}

// ---- velocity -----------------------------------------------------------------------------------

function readPeriodObject(raw: unknown, path: string): VelocityPeriod {
  const type = readOneOf((raw as { type?: unknown } | null)?.type, `${path}.type`, ['CUSTOM', ...FIXED_PERIODS] as const);
  switch (type) {
    case 'CUSTOM': {
      const record = readObject(raw, path, ['type', 'duration']);
      return { type, duration: readInteger(record.duration, `${path}.duration`, MIN_TRAILING_SECONDS, MAX_TRAILING_SECONDS) };
    }
    case 'DAY':
      readObject(raw, path, ['type']);
      return { type };
    case 'WEEK': {
      const record = readObject(raw, path, ['type'], ['day_of_week']);
      return record.day_of_week === undefined ? { type } : { type, day_of_week: readInteger(record.day_of_week, `${path}.day_of_week`, 1, 7) };
    }
    case 'MONTH': {
      const record = readObject(raw, path, ['type'], ['day_of_month']);
      return record.day_of_month === undefined ? { type } : { type, day_of_month: readInteger(record.day_of_month, `${path}.day_of_month`, 1, 31) };
    }
    case 'YEAR':
      return readYearPeriod(readObject(raw, path, ['type'], ['month', 'day_of_month']), path);
  }
}

/** A YEAR window starts on a real date (Feb 29 allowed: Feb 28 in non-leap years). */
function readYearPeriod(record: Record<string, unknown>, path: string): VelocityPeriod {
  const month = record.month === undefined ? undefined : readInteger(record.month, `${path}.month`, 1, 12);
  const day = record.day_of_month === undefined ? undefined : readInteger(record.day_of_month, `${path}.day_of_month`, 1, 31);
  const maxDay = MAX_DAYS_IN_MONTH[(month ?? 1) - 1] as number;
  if (day !== undefined && day > maxDay) fail(`${path}.day_of_month`, `month ${month ?? 1} has at most ${maxDay} days`);
  return { type: 'YEAR', ...(month !== undefined ? { month } : {}), ...(day !== undefined ? { day_of_month: day } : {}) };
}

function readPeriod(raw: unknown, path: string): VelocityPeriod {
  if (typeof raw === 'number') return readInteger(raw, path, MIN_TRAILING_SECONDS, MAX_TRAILING_SECONDS);
  if (typeof raw === 'string') return readOneOf(raw, path, FIXED_PERIODS);
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    fail(path, 'must be a number of seconds, DAY, WEEK, MONTH, YEAR, or an object with a type (CUSTOM, DAY, WEEK, MONTH, YEAR)');
  }
  return readPeriodObject(raw, path);
}

const FILTER_SPECS = {
  include_mccs: AUTHORIZATION_ATTRIBUTES.MCC,
  exclude_mccs: AUTHORIZATION_ATTRIBUTES.MCC,
  include_countries: AUTHORIZATION_ATTRIBUTES.COUNTRY,
  exclude_countries: AUTHORIZATION_ATTRIBUTES.COUNTRY,
  include_pan_entry_modes: AUTHORIZATION_ATTRIBUTES.PAN_ENTRY_MODE,
} as const satisfies Record<keyof VelocityFiltersParameters, AttributeSpec | undefined>;

function readFilters(raw: unknown, path: string): VelocityFiltersParameters {
  const record = readObject(raw, path, [], Object.keys(FILTER_SPECS));
  const filters: VelocityFiltersParameters = {};
  for (const [name, spec] of Object.entries(FILTER_SPECS) as Array<[keyof VelocityFiltersParameters, AttributeSpec]>) {
    const value = record[name];
    if (value === undefined) continue;
    filters[name] = value === null ? null : readArray(value, `${path}.${name}`, MAX_LIST_VALUES, (entry, entryPath) => readListValue(spec, entry, entryPath));
  }
  return filters;
}

function readLimit(value: unknown, path: string): number | null | undefined {
  return value === undefined || value === null ? (value as null | undefined) : readInteger(value, path, 0);
}

function readVelocity(raw: unknown, path: string): VelocityLimitParameters {
  const record = readObject(raw, path, ['scope', 'period', 'filters'], ['limit_amount', 'limit_count']);
  const parameters: VelocityLimitParameters = {
    scope: readOneOf(record.scope, `${path}.scope`, ['CARD', 'ACCOUNT'] as const),
    period: readPeriod(record.period, `${path}.period`),
    filters: readFilters(record.filters, `${path}.filters`),
  };
  const limitAmount = readLimit(record.limit_amount, `${path}.limit_amount`);
  const limitCount = readLimit(record.limit_count, `${path}.limit_count`);
  if (limitAmount !== undefined) parameters.limit_amount = limitAmount;
  if (limitCount !== undefined) parameters.limit_count = limitCount;
  if ((limitAmount ?? null) === null && (limitCount ?? null) === null) fail(path, 'give limit_amount or limit_count (or both)');
  return parameters;
}

// ---- merchant lock ------------------------------------------------------------------------------

function readMerchant(raw: unknown, path: string): MerchantLockEntry {
  const record = readObject(raw, path, [], ['merchant_id', 'descriptor', 'comment']);
  const entry: MerchantLockEntry = {};
  if (record.merchant_id !== undefined) entry.merchant_id = readText(record.merchant_id, `${path}.merchant_id`);
  if (record.descriptor !== undefined) entry.descriptor = readText(record.descriptor, `${path}.descriptor`);
  if (record.comment !== undefined) entry.comment = readText(record.comment, `${path}.comment`, true);
  if (entry.merchant_id === undefined && entry.descriptor === undefined) fail(path, 'give merchant_id or descriptor (or both)');
  return entry;
}

// ---- entry point --------------------------------------------------------------------------------

function readAction(raw: unknown, path: string, stream: EventStream): ConditionalActionParameters {
  const record = readObject(raw, path, ['action', 'conditions']);
  // CHALLENGE on AUTHORIZATION (SDK 0.119): Lithic's Authorization Challenges (rules.ts).
  const action = readOneOf(record.action, `${path}.action`, ['DECLINE', 'CHALLENGE'] as const);
  const attributes = stream === 'AUTHORIZATION' ? AUTHORIZATION_ACTION_ATTRIBUTES : THREE_DS_ATTRIBUTES;
  return { action, conditions: readConditions(record.conditions, `${path}.conditions`, attributes, stream) };
}

/** Validates `raw` as the parameters of a rule of `type` on `stream`; throws a 400 naming the path. */
export function parseParameters(type: AuthRuleType, stream: EventStream, raw: unknown, path = 'parameters'): AuthRuleParameters {
  switch (type) {
    case 'CONDITIONAL_BLOCK':
      return { conditions: readConditions(readObject(raw, path, ['conditions']).conditions, `${path}.conditions`, AUTHORIZATION_ATTRIBUTES, stream) };
    case 'VELOCITY_LIMIT':
      return readVelocity(raw, path);
    case 'MERCHANT_LOCK':
      return { merchants: readArray(readObject(raw, path, ['merchants']).merchants, `${path}.merchants`, MAX_MERCHANTS, readMerchant) };
    case 'CONDITIONAL_3DS_ACTION':
    case 'CONDITIONAL_ACTION':
      return readAction(raw, path, stream);
  }
}

