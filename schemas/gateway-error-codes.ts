// The gateway error catalogue of spec §7.2: every `000-` code with the message the spec gives,
// plus the HTTP status and trigger the reference interpretation (OI-14, OI-16) assigns to it.
// The spec gives codes and messages only; statuses and triggers are interpretations that a
// target profile may override. Shared by the suite and the reference server.

export type GatewayErrorFamily = 'request' | 'auth' | 'rate-limit' | 'syntax' | 'routing' | 'path' | 'backend';

export interface GatewayErrorDefinition {
  readonly code: GatewayErrorCode;
  /** The message column of spec §7.2 (000-1200 has none in the spec). */
  readonly message: string;
  /** HTTP status taken by the reference interpretation (OI-14). */
  readonly status: number;
  readonly family: GatewayErrorFamily;
  /** The condition that produces the code in the reference interpretation. */
  readonly trigger: string;
}

export const gatewayErrorCodes = [
  '000-1000',
  '000-1001',
  '000-1002',
  '000-1003',
  '000-1004',
  '000-1005',
  '000-1010',
  '000-1020',
  '000-1100',
  '000-1101',
  '000-1200',
  '000-1201',
  '000-1202',
  '000-1205',
  '000-1208',
  '000-2000',
  '000-2001',
  '000-2100',
  '000-2101',
  '000-2102',
  '000-2110',
  '000-2111',
  '000-2112',
  '000-2120',
  '000-2121',
  '000-2122',
  '000-3000',
  '000-3010',
  '000-4000',
  '000-5000',
  '000-5001',
  '000-5002',
  '000-5003',
  '000-5004',
] as const;

export type GatewayErrorCode = (typeof gatewayErrorCodes)[number];

const define = (
  code: GatewayErrorCode,
  message: string,
  status: number,
  family: GatewayErrorFamily,
  trigger: string,
): GatewayErrorDefinition => ({ code, message, status, family, trigger });

export const gatewayErrors: Readonly<Record<GatewayErrorCode, GatewayErrorDefinition>> = {
  '000-1000': define(
    '000-1000',
    'Bad Request',
    400,
    'request',
    'An HTTP message the gateway cannot frame (bad or repeated Content-Length, broken chunking, oversized or malformed header block), or a body (Content-Length above 0, or Transfer-Encoding) on a GET or HEAD.',
  ),
  '000-1001': define(
    '000-1001',
    'Invalid Host',
    400,
    'request',
    'A Host header that is missing, repeated or unparseable, or (origin-form target) names a host the gateway is not configured for.',
  ),
  '000-1002': define(
    '000-1002',
    'Invalid Target',
    400,
    'request',
    'A request-target the gateway does not route: absolute-form naming a foreign host or a scheme other than http(s), asterisk-form (`OPTIONS *`), or authority-form.',
  ),
  '000-1003': define(
    '000-1003',
    'Invalid Gateway',
    502,
    'routing',
    'The route points at a gateway or environment not configured for this API (fault switch `invalid-gateway`).',
  ),
  '000-1004': define(
    '000-1004',
    'Invalid Gateway Error',
    502,
    'routing',
    'An internal gateway configuration fault (fault switch `gateway-config-error`), or any unexpected error inside the gateway.',
  ),
  '000-1005': define(
    '000-1005',
    'Invalid Content-type',
    415,
    'request',
    'A request body whose media type the API does not take (anything but application/json on an API that takes a body).',
  ),
  '000-1010': define(
    '000-1010',
    'Invalid URI',
    400,
    'request',
    'A malformed path: a bad or non-UTF-8 percent-escape (`%zz`), an encoded NUL or control character, a character a URI path may not hold (controls, space, non-ASCII, `"<>\\^`{|}#`), or a dot-segment (`.`, `..`, also percent-encoded).',
  ),
  '000-1020': define(
    '000-1020',
    'Invalid/missing version',
    400,
    'request',
    'A protected path whose first segment is not `v1`: no version segment, or another version (`v0`, `v2`, `vx`, `V1`).',
  ),
  '000-1100': define(
    '000-1100',
    'Forbidden',
    403,
    'auth',
    'A valid token of a client_credentials client that is not registered with Data Services (no tenant id and role).',
  ),
  '000-1101': define(
    '000-1101',
    'Forbidden',
    403,
    'auth',
    'A valid token whose client or user role does not grant the API called.',
  ),
  '000-1200': define(
    '000-1200',
    'Unauthorized',
    401,
    'auth',
    'Listed without a message by the spec; the reference server never produces it (a member of the 12xx Unauthorized family).',
  ),
  '000-1201': define(
    '000-1201',
    'Unauthorized',
    401,
    'auth',
    'No credentials: no Authorization header, or a scheme other than Bearer. A token only in the query (`access_token=`) or a form body is not read, so it counts as none.',
  ),
  '000-1202': define(
    '000-1202',
    'Unauthorized',
    401,
    'auth',
    'A parseable bearer token that fails verification: bad signature, expired, not yet valid, or issued for another environment or audience.',
  ),
  '000-1205': define(
    '000-1205',
    'token parse error',
    401,
    'auth',
    'A bearer credential that cannot be parsed as a token: `Bearer` with no token, characters outside b64token (a tab, a second word), not three base64url segments, or an undecodable JOSE header or claims.',
  ),
  '000-1208': define(
    '000-1208',
    'Invalid Gateway Error',
    502,
    'routing',
    'The gateway cannot validate a parseable token because its key source failed (fault switch `key-source-failure`, or the token verifier throws).',
  ),
  '000-2000': define(
    '000-2000',
    'Rate Limit Exceeded',
    429,
    'rate-limit',
    'The per-client quota of the current fixed window (`windowSeconds` of the injected clock) is spent; carries Retry-After (seconds to the end of the window).',
  ),
  '000-2001': define(
    '000-2001',
    'Rate Limit Exceeded',
    429,
    'rate-limit',
    'The per-client spike limit (`spikePerSecond` within one second of the injected clock) is exceeded; carries Retry-After.',
  ),
  '000-2100': define(
    '000-2100',
    'Malformed request syntax',
    400,
    'syntax',
    'A header value that cannot be parsed (an Accept header that is not a media-range list).',
  ),
  '000-2101': define(
    '000-2101',
    'Malformed request syntax',
    400,
    'syntax',
    'A required header is missing (Content-Type on the note API, which takes a body).',
  ),
  '000-2102': define(
    '000-2102',
    'Malformed request syntax',
    400,
    'syntax',
    'A header with an invalid value: two Authorization headers, or an Accept header that excludes application/json.',
  ),
  '000-2110': define(
    '000-2110',
    'Malformed request syntax',
    400,
    'syntax',
    'A query string that cannot be parsed (a bad percent-escape, a repeated parameter).',
  ),
  '000-2111': define(
    '000-2111',
    'Malformed request syntax',
    400,
    'syntax',
    'A required query parameter is missing or empty (`lastName` on the people search).',
  ),
  '000-2112': define(
    '000-2112',
    'Malformed request syntax',
    400,
    'syntax',
    'A query parameter with the wrong type or format (`limit` not an integer from 1 to 100, `lastName` longer than 100 characters).',
  ),
  '000-2120': define(
    '000-2120',
    'Malformed request syntax',
    400,
    'syntax',
    'A request body that cannot be parsed: not UTF-8 JSON, not a JSON object, or larger than 64 KiB.',
  ),
  '000-2121': define(
    '000-2121',
    'Malformed request syntax',
    400,
    'syntax',
    'A required body member is missing (`text` of a note).',
  ),
  '000-2122': define(
    '000-2122',
    'Malformed request syntax',
    400,
    'syntax',
    'A body member with the wrong type or value (`text` not a string of 1 to 2000 characters).',
  ),
  '000-3000': define(
    '000-3000',
    'Route failure',
    502,
    'routing',
    'The upstream of the route is unreachable (fault switch `route-failure`).',
  ),
  '000-3010': define(
    '000-3010',
    'Multi-route failure',
    502,
    'routing',
    'Every candidate upstream of the route failed (fault switch `multi-route-failure`).',
  ),
  '000-4000': define(
    '000-4000',
    'Forbidden: Invalid path',
    403,
    'path',
    'A path under a valid version that the gateway does not expose, or an exposed path with another method.',
  ),
  '000-5000': define(
    '000-5000',
    'Service Unavailable',
    503,
    'backend',
    'The backend is down or in maintenance (fault switch `unavailable`); carries Retry-After (30 seconds).',
  ),
  '000-5001': define(
    '000-5001',
    'Bad Request',
    400,
    'backend',
    'The backend rejects the request: an identifier that is not well formed (`^[A-Za-z0-9][A-Za-z0-9-]{0,63}$` after percent-decoding).',
  ),
  '000-5002': define(
    '000-5002',
    'Unauthorized',
    401,
    'backend',
    "The backend rejects an identity the gateway accepted: the token's user or client is inactive (deactivated after issuance) or missing in the store.",
  ),
  '000-5003': define('000-5003', 'Not Found', 404, 'backend', 'A well-formed identifier with no record.'),
  '000-5004': define(
    '000-5004',
    'Not Found',
    404,
    'backend',
    'A route the gateway exposes but the backend does not implement (`GET /v1/people/er/{identifier}/history`).',
  ),
};

/** The wire shape of a gateway error in the reference interpretation (OI-14). */
export interface GatewayErrorBody {
  code: GatewayErrorCode;
  message: string;
}
