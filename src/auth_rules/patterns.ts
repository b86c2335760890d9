/**
 * The regular expressions of MATCHES / DOES_NOT_MATCH conditions run on V8's linear-time engine
 * (the `l` flag, enabled below): rules run on every authorization and 3DS authentication, drafts
 * too, in the server's one event loop, and a backtracking engine takes exponential time on
 * patterns as plain as `^(A|A|A)*$` (a 25-character descriptor: hours). No static check finds all
 * such patterns; an engine without backtracking has none. Like RE2's, it refuses backreferences
 * and lookaround; it also refuses counted repetitions that unroll to more than 16 copies
 * (`.{17}`, `(\d{9}){2}`), and it has no Unicode mode: patterns are checked for syntax in Unicode mode
 * (strict), and the escapes whose meaning differs without it (`\p{…}`, `\P{…}`, `\u{…}`) are refused.
 */
import v8 from 'node:v8';

v8.setFlagsFromString('--enable-experimental-regexp-engine');

/** Compiles a pattern on the linear-time engine; throws a SyntaxError when it cannot run there. */
function linearRegExp(pattern: string): RegExp {
  return new RegExp(pattern, 'l');
}

/** Why a pattern cannot be a condition's value, or null when it can. */
export function patternProblem(pattern: string): string | null {
  try {
    new RegExp(pattern, 'u');
  } catch (error) {
    return `must be a valid regular expression (${(error as Error).message})`;
  }
  for (let index = 0; index < pattern.length; index++) {
    if (pattern[index] !== '\\') continue;
    const escaped = pattern[++index];
    if (escaped === 'p' || escaped === 'P' || (escaped === 'u' && pattern[index + 1] === '{')) {
      return `must not use Unicode escapes (\\${escaped}{…}): patterns run without Unicode mode`;
    }
  }
  try {
    linearRegExp(pattern);
  } catch {
    return 'must be a regular expression that runs in linear time: no backreferences, no lookaround, no counted repetition of more than 16 (e.g. .{17})';
  }
  return null;
}

/**
 * The RegExp a condition runs. A version stored before patterns had to run in linear time may
 * hold one that cannot (a lookaround): it keeps its former, backtracking, evaluation.
 */
export function conditionRegExp(pattern: string): RegExp {
  try {
    return linearRegExp(pattern);
  } catch {
    return new RegExp(pattern, 'u');
  }
}
