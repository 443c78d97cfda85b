// Scope values (RFC 6749 §3.3): a space-delimited list of case-sensitive tokens, compared as sets.
import { InvalidScope, descriptions } from './errors.ts';

const scopeToken = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/** The requested scope, or `undefined` when the parameter is absent or empty (RFC 6749 §3.1: empty = omitted). */
export function parseScope(value: string | undefined): string[] | undefined {
  if (value === undefined || value === '') return undefined;
  const tokens = value.split(' ');
  if (tokens.some((t) => !scopeToken.test(t)))
    throw new InvalidScope(descriptions.invalidScope, 'malformed scope value');
  return [...new Set(tokens)];
}

/**
 * Narrows `granted` to `requested`: no request keeps the whole grant; a request that names any
 * value outside `granted` is invalid_scope. The result keeps the order of `granted`.
 */
export function narrowScope(granted: readonly string[], requested: readonly string[] | undefined): string[] {
  if (requested === undefined) return [...granted];
  const unknown = requested.filter((s) => !granted.includes(s));
  if (unknown.length > 0)
    throw new InvalidScope(descriptions.invalidScope, `scope beyond grant (${unknown.length} value(s))`);
  return granted.filter((s) => requested.includes(s));
}

export const formatScope = (scope: readonly string[]): string => scope.join(' ');
export const splitScope = (scope: string): string[] => (scope === '' ? [] : scope.split(' '));
