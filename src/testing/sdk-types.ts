/**
 * Checks the hand-kept response shapes (money-shapes.ts, resource-shapes.ts; their format is
 * shapes.ts's) against the `lithic` SDK's own types: the TypeScript compiler reads the SDK's
 * declarations (node_modules/lithic/resources/**\/*.d.ts), and both sides become the same flat
 * list of fields, one per path (`events[].type`: the `type` of an item of `events`), each with its
 * JSON type, whether it is optional or nullable, and its enum values. `shapeDrift` names every
 * field where the two lists differ.
 *
 * A copy may be narrower where JSON is the same: `uuid`, `date`, `date-time` are strings and
 * `integer` is a number, so they match the SDK's `string` and `number`.
 *
 * A union (`number | 'DAY' | FixedWindowWeek | …`) is a field of type `union` and, inside it, one
 * field per variant at `path<name>`: an object variant named by its interface, the others by their
 * JSON type (string literals together make one `string` enum), so the copy's `union({ name: … })`
 * is compared variant by variant.
 */
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import type { Shape, Spec } from './shapes.js';

/** One field of a shape: `type` is its JSON type, `values` its enum values when it is an enum. */
interface Field {
  type: string;
  optional: boolean;
  nullable: boolean;
  values?: readonly string[];
}
type Fields = Map<string, Field>;

const arrayItem = (path: string) => `${path}[]`;
const member = (path: string, key: string) => (path === '' ? key : `${path}.${key}`);
const variant = (path: string, name: string) => `${path}<${name}>`;
/** Whether `path` is a field inside the field at `outer` (a member, an array's item or a variant). */
const isInside = (path: string, outer: string) => path.length > outer.length && path.startsWith(outer) && '.[<'.includes(path[outer.length]!);

/** The fields of a hand-kept shape. */
export function shapeFields(shape: Shape, path = '', fields: Fields = new Map()): Fields {
  for (const [declaration, spec] of Object.entries(shape)) {
    const optional = declaration.endsWith('?');
    addSpec(fields, member(path, optional ? declaration.slice(0, -1) : declaration), spec, optional);
  }
  return fields;
}

function addSpec(fields: Fields, path: string, spec: Spec, optional: boolean, nullable = false): void {
  if (typeof spec === 'string') {
    const type = spec === 'integer' || spec === 'number' ? 'number' : spec === 'boolean' ? 'boolean' : spec === 'any-object' ? 'object' : 'string';
    fields.set(path, { type, optional, nullable });
    return;
  }
  switch (spec.kind) {
    case 'nullable':
      return addSpec(fields, path, spec.of, optional, true);
    case 'enum':
      fields.set(path, { type: 'string', optional, nullable, values: spec.values });
      return;
    case 'array':
      fields.set(path, { type: 'array', optional, nullable });
      return addSpec(fields, arrayItem(path), spec.of, false);
    case 'object':
      fields.set(path, { type: 'object', optional, nullable });
      shapeFields(spec.shape, path, fields);
      return;
    case 'union':
      fields.set(path, { type: 'union', optional, nullable });
      for (const [name, each] of Object.entries(spec.variants)) addSpec(fields, variant(path, name), each, false);
  }
}

/**
 * The fields of SDK types, by their name as the SDK's default export spells them
 * (`BookTransferResponse`, `FinancialAccounts.BalanceListResponse`). One compiler run reads them
 * all.
 */
export function sdkFields(typeNames: readonly string[]): Map<string, Fields> {
  // A source file that exists only in memory names each type, so the compiler resolves `lithic`
  // (and the namespaces inside it) exactly as a test importing it does.
  const probe = fileURLToPath(new URL('./sdk-types.probe.ts', import.meta.url));
  const text = ["import type Lithic from 'lithic';", ...typeNames.map((name, index) => `export type T${index} = Lithic.${name};`)].join('\n');
  const options: ts.CompilerOptions = { strict: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, noEmit: true, types: [] };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists } = host;
  host.fileExists = (file) => file === probe || fileExists(file);
  host.getSourceFile = (file, ...rest) => (file === probe ? ts.createSourceFile(file, text, ts.ScriptTarget.ES2022) : getSourceFile(file, ...rest));
  const program = ts.createProgram([probe], options, host);
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(probe)!;
  const problems = ts.getPreEmitDiagnostics(program, source).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
  if (problems.length > 0) throw new Error(`the SDK does not declare these types: ${problems.join('; ')}`);

  const byName = new Map<string, Fields>();
  source.statements.filter(ts.isTypeAliasDeclaration).forEach((alias, index) => {
    const fields: Fields = new Map();
    addProperties(checker, fields, '', checker.getTypeAtLocation(alias.name));
    byName.set(typeNames[index]!, fields);
  });
  return byName;
}

function addProperties(checker: ts.TypeChecker, fields: Fields, path: string, type: ts.Type): void {
  for (const property of checker.getPropertiesOfType(type)) {
    const optional = (property.flags & ts.SymbolFlags.Optional) !== 0;
    addType(checker, fields, member(path, property.name), checker.getTypeOfSymbol(property), optional);
  }
}

/** Adds the field at `path` of TypeScript type `type` (and the fields inside it). */
function addType(checker: ts.TypeChecker, fields: Fields, path: string, type: ts.Type, optional: boolean): void {
  const members = type.isUnion() ? type.types : [type];
  const nullable = members.some((each) => (each.flags & ts.TypeFlags.Null) !== 0);
  // An optional property's type includes `undefined`; `optional` already says it.
  const rest = members.filter((each) => (each.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined)) === 0);
  addMembers(checker, fields, path, rest, { optional, nullable });
}

/** Adds the field at `path` whose type is the union of `members` (none of them null or undefined). */
function addMembers(checker: ts.TypeChecker, fields: Fields, path: string, members: readonly ts.Type[], flags: { optional: boolean; nullable: boolean }): void {
  const field = (kind: string, values?: string[]) => fields.set(path, { type: kind, ...flags, ...(values && { values }) });
  if (members.length > 0 && members.every((each) => (each.flags & ts.TypeFlags.BooleanLike) !== 0)) return void field('boolean');
  if (members.length > 0 && members.every((each) => each.isStringLiteral())) return void field('string', members.map((each) => (each as ts.StringLiteralType).value));
  const variants = new Map<string, ts.Type[]>();
  for (const each of members.length > 1 ? members : []) {
    const name = variantName(checker, each, path);
    variants.set(name, [...(variants.get(name) ?? []), each]);
  }
  if (variants.size > 1) {
    field('union');
    for (const [name, group] of variants) addMembers(checker, fields, variant(path, name), group, { optional: false, nullable: false });
    return;
  }
  const [single] = members;
  if (members.length !== 1 || single === undefined) throw new Error(`${path}: a union of ${members.map((each) => checker.typeToString(each)).join(' | ')} is not a JSON type this reads`);
  if (single.flags & ts.TypeFlags.String) return void field('string');
  if (single.flags & ts.TypeFlags.Number) return void field('number');
  if (single.flags & ts.TypeFlags.Unknown || single.flags & ts.TypeFlags.Any) return void field('unknown');
  if (checker.isArrayType(single)) {
    field('array');
    return addType(checker, fields, arrayItem(path), checker.getTypeArguments(single as ts.TypeReference)[0]!, false);
  }
  if (single.flags & ts.TypeFlags.Object) {
    field('object');
    return addProperties(checker, fields, path, single);
  }
  throw new Error(`${path}: ${checker.typeToString(single)} is not a JSON type this reads`);
}

/** A union member's variant name: an object's interface name, else its JSON type. */
function variantName(checker: ts.TypeChecker, type: ts.Type, path: string): string {
  if (type.flags & ts.TypeFlags.BooleanLike) return 'boolean';
  if (type.flags & ts.TypeFlags.StringLike) return 'string';
  if (type.flags & ts.TypeFlags.NumberLike) return 'number';
  if (checker.isArrayType(type)) return 'array';
  const name = type.getSymbol()?.getName();
  if (type.flags & ts.TypeFlags.Object && name !== undefined && !name.startsWith('__')) return name;
  throw new Error(`${path}: ${checker.typeToString(type)} is an anonymous or unknown variant of a union this cannot name`);
}

/** Every way the copy's fields differ from the SDK's, one line per difference, in path order. */
export function shapeDrift(copy: Fields, sdk: Fields): string[] {
  const drift: string[] = [];
  // Fields inside one that is missing or of another type are not compared: its line says it.
  const unmatched: string[] = [];
  const paths = [...new Set([...sdk.keys(), ...copy.keys()])].sort(); // a field sorts before the fields inside it
  for (const path of paths) {
    if (unmatched.some((outer) => isInside(path, outer))) continue;
    const [mine, theirs] = [copy.get(path), sdk.get(path)];
    if (mine === undefined || theirs === undefined || mine.type !== theirs.type) unmatched.push(path);
    if (mine === undefined || theirs === undefined) {
      drift.push(`${path}: ${mine === undefined ? 'missing from the copy' : 'not in the SDK type'}`);
      continue;
    }
    const says = (flag: boolean, what: string) => (flag ? what : `not ${what}`);
    if (mine.optional !== theirs.optional) drift.push(`${path}: ${says(mine.optional, 'optional')} in the copy, ${says(theirs.optional, 'optional')} in the SDK`);
    if (mine.nullable !== theirs.nullable) drift.push(`${path}: ${says(mine.nullable, 'nullable')} in the copy, ${says(theirs.nullable, 'nullable')} in the SDK`);
    if (mine.type !== theirs.type) drift.push(`${path}: ${mine.type} in the copy, ${theirs.type} in the SDK`);
    else if (mine.values === undefined || theirs.values === undefined) {
      if (mine.values !== theirs.values) drift.push(`${path}: ${mine.values ? 'an enum' : 'any string'} in the copy, ${theirs.values ? 'an enum' : 'any string'} in the SDK`);
    } else {
      const [ours, sdks] = [new Set(mine.values), new Set(theirs.values)];
      for (const value of [...theirs.values].sort()) if (!ours.has(value)) drift.push(`${path}: enum value ${value} missing from the copy`);
      for (const value of [...mine.values].sort()) if (!sdks.has(value)) drift.push(`${path}: enum value ${value} not in the SDK type`);
    }
  }
  return drift;
}
