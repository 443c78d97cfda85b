// The OpenAPI 3.1 document of the service (`schemas/openapi.json`): the two token endpoints and
// the protected-call shape of spec §4, for other tools (mock servers, API fuzzers, HTTP clients).
// Built from the same sources as the .schema.json files: every authored schema is embedded
// verbatim under components.schemas (OpenAPI 3.1 schemas are JSON Schema 2020-12), and the gateway
// error responses come from gateway-error-codes.ts. Nothing here restates a schema by hand.
import { gatewayErrorCodes, gatewayErrors } from '../gateway-error-codes.ts';
import type { GatewayErrorCode } from '../gateway-error-codes.ts';
import { jsonSchemaDialect } from './common.ts';
import { authoredSchemas } from './index.ts';
import type { AuthoredSchemaName } from './index.ts';
import packageJson from '../../package.json' with { type: 'json' };

/** The authored schemas a client or server of the service exchanges; the catalogue schemas are the suite's own. */
const wireSchemaNames = [
  'token-request-client-credentials',
  'token-request-password',
  'token-request-refresh-token',
  'token-response-us-client-credentials',
  'token-response-eu-client-credentials',
  'token-response-password',
  'token-response-refresh-token',
  'token-error',
  'gateway-error',
] as const satisfies readonly AuthoredSchemaName[];

type WireSchemaName = (typeof wireSchemaNames)[number];

const ref = (name: WireSchemaName | 'token-request-us'): { $ref: string } => ({ $ref: `#/components/schemas/${name}` });

/** The examples a schema carries, as named OpenAPI Example Objects (`<prefix>-1`, `<prefix>-2`, …). */
function examplesOf(name: WireSchemaName, prefix: string = name): Record<string, { summary: string; value: unknown }> {
  const schema = authoredSchemas[name] as { title: string; examples?: readonly unknown[] };
  return Object.fromEntries(
    (schema.examples ?? []).map((value, index) => [`${prefix}-${index + 1}`, { summary: schema.title, value }]),
  );
}

const retryAfter = {
  description: 'Seconds until a new attempt can succeed (RFC 9110 §10.2.3).',
  schema: { type: 'integer', minimum: 0 },
} as const;

const tokenErrorContent = { 'application/json': { schema: ref('token-error'), examples: examplesOf('token-error') } };

/** The error answers of a token endpoint to a POST (spec §7.1; statuses beyond 400 are the reference interpretation). */
const tokenErrorResponses = {
  '400': {
    description: 'An invalid or unauthorized token request (spec §2.3, §7.1): a token-error body, never a token.',
    content: tokenErrorContent,
  },
  '401': {
    description:
      'invalid_client for a client that authenticated with HTTP Basic (RFC 6749 §5.2; interpretation OI-2), with a `WWW-Authenticate: Basic` challenge. A client using the form fields of spec §2.1 gets 400 instead.',
    headers: {
      'WWW-Authenticate': { description: 'A Basic challenge (RFC 6749 §5.2, RFC 7617).', schema: { type: 'string' } },
    },
    content: tokenErrorContent,
  },
  '429': {
    description:
      'The user (invalid_grant) or client (invalid_client) is locked after too many failed attempts (RFC 6749 §4.3.2; reference interpretation), with Retry-After.',
    headers: { 'Retry-After': retryAfter },
    content: tokenErrorContent,
  },
} as const;

/** A token path answers every method but POST with 405 (requirement TOKEN-REQ-001, interpretation OI-12). */
const methodNotAllowed = {
  tags: ['token'],
  summary: 'Any method but POST: refused',
  description:
    'Spec §4 gives POST only. The reference interpretation (OI-12) answers 405 with `Allow: POST` and an invalid_request body; a target profile may declare 400 or 404 instead.',
  security: [],
  responses: {
    '405': {
      description: 'Method not allowed: an invalid_request token-error body and `Allow: POST`.',
      headers: { Allow: { description: 'The one method a token path takes.', schema: { const: 'POST' } } },
      content: tokenErrorContent,
    },
  },
} as const;

const nonPostOperations = (operationPrefix: string) =>
  Object.fromEntries(
    (['get', 'put', 'patch', 'delete'] as const).map((method) => [
      method,
      { ...methodNotAllowed, operationId: `${operationPrefix}-${method}-not-allowed` },
    ]),
  );

const formEncoding = 'application/x-www-form-urlencoded';

/** Server Objects for one of the spec's placeholder addresses (`{auth_url_us}`, `{auth_url_eu}`, `{base_url}`). */
const serverFor = (variable: 'auth_url_us' | 'auth_url_eu' | 'base_url', description: string, example: string) => [
  {
    url: `{${variable}}`,
    description: `${description} (spec: {${variable}}). The default is an example; set the variable to the target's origin.`,
    variables: {
      [variable]: { default: example, description: `The origin of {${variable}}, scheme included (https; spec §5.1).` },
    },
  },
];

/** The gateway codes of one HTTP status (reference interpretation OI-14), in catalogue order. */
function codesWithStatus(status: number): GatewayErrorCode[] {
  return gatewayErrorCodes.filter((code) => gatewayErrors[code].status === status);
}

/** One response per status of the gateway catalogue; each narrows gateway-error to the codes that status carries. */
function gatewayErrorResponses(): Record<string, unknown> {
  const statuses = [...new Set(gatewayErrorCodes.map((code) => gatewayErrors[code].status))].sort((a, b) => a - b);
  return Object.fromEntries(
    statuses.map((status) => {
      const codes = codesWithStatus(status);
      const withRetryAfter = status === 429 || status === 503;
      return [
        String(status),
        {
          description:
            `Gateway error (spec §7.2), status as the reference interpretation assigns it (OI-14): ` +
            codes.map((code) => `${code} ${gatewayErrors[code].message}`).join('; ') +
            (withRetryAfter ? '. Carries Retry-After.' : '.'),
          ...(withRetryAfter ? { headers: { 'Retry-After': retryAfter } } : {}),
          content: {
            'application/json': {
              schema: { allOf: [ref('gateway-error'), { type: 'object', properties: { code: { enum: codes } } }] },
              example: { code: codes[0], message: gatewayErrors[codes[0] as GatewayErrorCode].message },
            },
          },
        },
      ];
    }),
  );
}

/** The document; info.version is the package's version, so a release states which contract it ships. */
export function buildOpenApiDocument(): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    jsonSchemaDialect,
    info: {
      title: 'OAuth 2.0 token service (as specified, with the reference interpretation)',
      version: packageJson.version,
      summary:
        'The token endpoints and the protected-call shape of the token service spec, published by token-conformance.',
      description:
        'Generated by `npm run schemas:emit` from the same sources as the schemas/*.schema.json files (embedded verbatim under components.schemas). ' +
        'Three origins, as in the spec: {auth_url_us} and {auth_url_eu} serve the token endpoints, {base_url} the protected APIs; each path names its own server. ' +
        'Where the spec is silent (statuses other than 400 at the token endpoints, the gateway error body and the status of each gateway code), ' +
        'this document states the reference interpretation, which a target profile of token-conformance may override; the conformance suite, not this document, is the judge.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    tags: [
      { name: 'token', description: 'Token acquisition (spec §2, §4 rows 1 to 4).' },
      { name: 'protected', description: 'Protected APIs behind the gateway (spec §4 row 5, §5, §7.2).' },
    ],
    paths: {
      '/api/v1/auth/oauth2/token': {
        servers: serverFor('auth_url_us', 'US token server', 'https://auth-us.example.com'),
        post: {
          tags: ['token'],
          operationId: 'request-token-us',
          summary: 'Request a token at the US endpoint (client_credentials, password or refresh_token)',
          description:
            'Spec §4 rows 1, 3 and 4. The grant is chosen by grant_type; each grant has its own request and response schema.',
          security: [],
          requestBody: {
            required: true,
            content: {
              [formEncoding]: {
                schema: ref('token-request-us'),
                examples: {
                  ...examplesOf('token-request-client-credentials', 'client-credentials'),
                  ...examplesOf('token-request-password', 'password'),
                  ...examplesOf('token-request-refresh-token', 'refresh-token'),
                },
              },
            },
          },
          responses: {
            '200': {
              description:
                'A token (spec §2.2): token-response-us-client-credentials for client_credentials, token-response-password for password, token-response-refresh-token for refresh_token. ' +
                'anyOf, not oneOf: the password and refresh_token responses have the same shape.',
              headers: {
                'Cache-Control': { description: 'no-store (RFC 6749 §5.1).', schema: { type: 'string' } },
              },
              content: {
                'application/json': {
                  schema: {
                    anyOf: [
                      ref('token-response-us-client-credentials'),
                      ref('token-response-password'),
                      ref('token-response-refresh-token'),
                    ],
                  },
                  examples: {
                    ...examplesOf('token-response-us-client-credentials', 'client-credentials'),
                    ...examplesOf('token-response-password', 'password'),
                    ...examplesOf('token-response-refresh-token', 'refresh-token'),
                  },
                },
              },
            },
            ...tokenErrorResponses,
          },
        },
        ...nonPostOperations('request-token-us'),
      },
      '/oauth2/default/v1/token': {
        servers: serverFor('auth_url_eu', 'EU token server', 'https://auth-eu.example.com'),
        post: {
          tags: ['token'],
          operationId: 'request-token-eu',
          summary: 'Request a token at the EU endpoint (client_credentials)',
          description:
            'Spec §4 row 2. The spec gives the EU endpoint for client_credentials only; the password and refresh_token grants there are not shown.',
          security: [],
          requestBody: {
            required: true,
            content: {
              [formEncoding]: {
                schema: ref('token-request-client-credentials'),
                examples: examplesOf('token-request-client-credentials', 'client-credentials'),
              },
            },
          },
          responses: {
            '200': {
              description: 'A token with scope "empty_default" and no refresh_token (spec §2.2).',
              headers: {
                'Cache-Control': { description: 'no-store (RFC 6749 §5.1).', schema: { type: 'string' } },
              },
              content: {
                'application/json': {
                  schema: ref('token-response-eu-client-credentials'),
                  examples: examplesOf('token-response-eu-client-credentials', 'client-credentials'),
                },
              },
            },
            ...tokenErrorResponses,
          },
        },
        ...nonPostOperations('request-token-eu'),
      },
      '/v1/people/er/{identifier}': {
        servers: serverFor('base_url', 'Protected APIs (the gateway)', 'https://api.example.com'),
        get: {
          tags: ['protected'],
          operationId: 'get-person',
          summary: 'The protected-call shape: read one person record',
          description:
            'Spec §4 row 5: `Authorization: Bearer <access token>` (required) and `Accept: application/json`. ' +
            'The spec shows neither the meaning and format of the identifier nor the response body; every protected API follows the same header rule (spec §5.1). ' +
            'The error responses list the whole §7.2 catalogue by status; which codes this path can produce is not shown.',
          security: [{ bearerAuth: [] }],
          parameters: [
            {
              name: 'identifier',
              in: 'path',
              required: true,
              description:
                'Format not shown by the spec (§4 notes). The reference backend takes `^[A-Za-z0-9][A-Za-z0-9-]{0,63}$` and answers 000-5001 otherwise.',
              schema: { type: 'string', minLength: 1 },
            },
          ],
          responses: {
            '200': {
              description: 'The person record. Its format is not shown by the spec (§4 notes).',
              content: { 'application/json': { schema: { type: 'object' } } },
            },
            ...gatewayErrorResponses(),
          },
        },
      },
    },
    components: {
      schemas: {
        'token-request-us': {
          title: 'Token request at the US endpoint',
          description: 'One of the three grant requests, told apart by grant_type (spec §2.1, §4 rows 1, 3 and 4).',
          oneOf: [
            ref('token-request-client-credentials'),
            ref('token-request-password'),
            ref('token-request-refresh-token'),
          ],
        },
        ...Object.fromEntries(wireSchemaNames.map((name) => [name, authoredSchemas[name]])),
      },
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An access token from either token endpoint, sent as `Authorization: Bearer <token>` (spec §5.1; RFC 6750 §2.1).',
        },
      },
    },
  };
}

/** The name of the emitted document, next to the .schema.json files. */
export const openApiFileName = 'openapi.json';
