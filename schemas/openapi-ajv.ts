// Validators for the schemas inside an OpenAPI 3.1 document (schemas/openapi.json), compiled with
// the contract's ajv (createAjv: draft 2020-12, strict). A `$ref` to `#/components/schemas/<name>`
// is resolved by registering every component schema under an id of its own: the authored schemas
// keep the `$id` they carry, the others get `urn:openapi-component:<name>`.
import type { ValidateFunction } from 'ajv';
import { createAjv } from './index.ts';

type Json = Record<string, unknown>;

const componentRef = /"#\/components\/schemas\/([^"]+)"/g;

/** Returns a compiler for any schema of `document` (a media type's `schema`, a header's `schema`, …). */
export function openApiSchemaCompiler(document: Json): (schema: unknown) => ValidateFunction {
  const components = ((document.components as { schemas?: Json } | undefined)?.schemas ?? {}) as Record<string, Json>;
  const idOf = (name: string): string => {
    const id = components[name]?.$id;
    if (components[name] === undefined)
      throw new Error(`$ref to #/components/schemas/${name}, which the document does not define`);
    return typeof id === 'string' ? id : `urn:openapi-component:${name}`;
  };
  const rewriteRefs = (schema: unknown): Json =>
    JSON.parse(
      JSON.stringify(schema).replaceAll(componentRef, (_, name: string) => JSON.stringify(idOf(name))),
    ) as Json;
  const ajv = createAjv();
  for (const [name, schema] of Object.entries(components)) ajv.addSchema({ ...rewriteRefs(schema), $id: idOf(name) });
  return (schema) => ajv.compile(rewriteRefs(schema));
}
