// "Declare these": the WARNs that rest on a choice the profile did not declare, apart from what the
// target broke. One entry per profile field, with the requirements it would settle and the profile
// line to add — with the value the failures point at when exactly one allowed value shows in them,
// else with the allowed values to pick from.
import { interpretations } from '../../requirements/index.ts';
import type { Assumption, RequirementResult } from './report.schema.ts';
import { escapeRegExp } from '../../core/text/escape-regexp.ts';

type Judged = Pick<RequirementResult, 'id' | 'checks'>;

interface JsonSchemaNode {
  enum?: unknown[];
  properties?: Record<string, JsonSchemaNode>;
}

/** The allowed values of a profile field (`interpretations.key[.member…]`) from the interpretation catalogue; undefined when open-ended. */
export function allowedValues(field: string): unknown[] | undefined {
  const [root, key, ...members] = field.split('.');
  if (root !== 'interpretations' || key === undefined) return undefined;
  const entry = interpretations.find((i) => i.key === key) as
    { values?: unknown[]; schema?: JsonSchemaNode } | undefined;
  if (!entry) return undefined;
  if (members.length === 0) return entry.values ?? entry.schema?.enum;
  let node: JsonSchemaNode | undefined = entry.schema;
  for (const m of members) node = node?.properties?.[m];
  return node?.enum;
}

/** `"a": { "b": VALUE }` for the field `a.b`: the lines a profile needs, nested as the field is. */
export function profileLine(field: string, valueText: string): string {
  return field
    .split('.')
    .reduceRight((inner, part, i) => (i === 0 ? `"${part}": ${inner}` : `{ "${part}": ${inner} }`), valueText);
}

/** The one allowed value other than the assumed one that the failure reasons name, if exactly one. */
export function observedValue(
  values: readonly unknown[],
  assumed: string,
  reasons: readonly string[],
): string | number | undefined {
  const text = reasons.join('\n');
  const named = values.filter((v): v is string | number => {
    if (typeof v !== 'string' && typeof v !== 'number') return false;
    const s = String(v);
    if (s === assumed) return false;
    return new RegExp(`(?<![\\w-])${escapeRegExp(s)}(?![\\w-])`).test(text);
  });
  return named.length === 1 ? named[0] : undefined;
}

/** The report's assumptions: one per profile field that WARNs rested on, in the order first seen. */
export function assumptionsOf(requirements: readonly Judged[]): Assumption[] {
  const byField = new Map<string, { assumed: string; requirements: string[]; reasons: string[] }>();
  for (const r of requirements) {
    for (const c of r.checks) {
      if (c.verdict !== 'WARN' || !c.assumed) continue;
      for (const a of c.assumed) {
        const entry = byField.get(a.declare) ?? { assumed: a.choice, requirements: [], reasons: [] };
        if (!entry.requirements.includes(r.id)) entry.requirements.push(r.id);
        if (c.reason !== undefined) entry.reasons.push(c.reason);
        byField.set(a.declare, entry);
      }
    }
  }
  return [...byField].map(([declare, e]) => {
    const values = allowedValues(declare);
    const assumedValue = e.assumed.slice(e.assumed.indexOf('=') + 1);
    const observed = values ? observedValue(values, assumedValue, e.reasons) : undefined;
    const placeholder = values
      ? `<one of ${values.map((v) => JSON.stringify(v)).join(', ')}>`
      : "<the target's value (requirements/interpretations.json)>";
    return {
      declare,
      assumed: e.assumed,
      requirements: e.requirements,
      profileLine: profileLine(declare, observed !== undefined ? JSON.stringify(observed) : placeholder),
      ...(observed !== undefined ? { observed: String(observed) } : {}),
      ...(values ? { values: values.map((v) => JSON.stringify(v)) } : {}),
    };
  });
}
