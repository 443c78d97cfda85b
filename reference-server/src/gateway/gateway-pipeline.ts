// The gateway's decision for one request. The order is fixed; the first step that refuses
// the request decides it:
//
//    1. framing                    000-1000  a body on a GET or HEAD (what Node's parser cannot
//                                            frame never gets here: see gatewayClientError)
//    2. Host                       000-1001  no Host, two Hosts, an unparseable Host, or (origin-
//                                            form) a host name not in allowedHosts
//    3. request-target             000-1002  `*`, authority-form, or absolute-form naming a
//                                            foreign host or another scheme
//    4. URI                        000-1010  characters a path may not hold, a bad or non-UTF-8
//                                            percent-escape, an encoded control/NUL, a dot-segment
//    5. version                    000-1020  first segment other than `v1`
//    6. exposed path               000-4000  (method, path) not exposed under /v1/
//    7. header syntax              000-2102  two Authorization headers; Accept excluding JSON
//                                  000-2100  Accept that is not a media-range list
//    8. credentials                000-1201  no Authorization header, or another scheme
//                                  000-1205  Bearer without a b64token that parses as a JWT
//    9. key source (fault switch)  000-1208  `key-source-failure` (or a verifier that throws, step 10)
//   10. token verification         000-1202  bad signature, expired, not yet valid, other
//                                            environment or audience; 000-1205 if unparseable
//   11. authorization              000-1100  client_credentials client without Data Services
//                                            registration; 000-1101 role lacks the API
//   12. rate limits                000-2000  quota of the window spent; 000-2001 spike; both
//                                            with Retry-After
//   13. request syntax             000-2110/2111/2112 query; 000-2101/1005/2120/2121/2122 body
//   14. routing faults             000-1003/1004/3000/3010/5000 (fault switch; 5000 with Retry-After)
//   15. backend                    000-5004/5002/5001/5003, else 200 (201 for a note)
//
// Steps 8–10 come before 11 so that an unauthenticated caller learns nothing about roles;
// steps 1–7 come before 8 because they do not depend on who is calling. 1208 sits between
// parsing and verifying the token: a parse error needs no keys, a verification does.
import { resolveApi } from './api-routes.ts';
import type { ApiRoute } from './api-routes.ts';
import { authorize } from './authorization.ts';
import { bearerChallenge } from './bearer-challenge.ts';
import { readBearerCredential } from './bearer-credentials.ts';
import type { FaultSwitch } from './faults.ts';
import type { GatewayDeps } from './gateway-deps.ts';
import { reject } from './gateway-rejection.ts';
import type { GatewayRejection } from './gateway-rejection.ts';
import { checkHeaderSyntax } from './header-syntax.ts';
import type { PeopleBackend } from './people-backend.ts';
import { principalOf } from './principal.ts';
import type { FixedWindowRateLimiter } from './rate-limiter.ts';
import type { RawRequest } from './raw-request.ts';
import { checkFramingHostAndTarget } from './request-target.ts';
import type { RequestTarget } from './request-target.ts';
import { LookupsOfOneDecision } from './request-lookups.ts';
import { checkRequestSyntax } from './request-syntax.ts';
import { invalidTokenRejection, authenticateToken } from './token-authentication.ts';
import { decodePath } from './uri-path.ts';

/** Paths the app builder serves; a request for one that reaches the gateway is not its to decide. */
export const nonGatewayPaths: ReadonlySet<string> = new Set([
  '/api/v1/auth/oauth2/token',
  '/oauth2/default/v1/token',
  '/.well-known/jwks.json',
  '/__test/clock',
  '/__test/purge',
]);

export type GatewayDecision =
  | { kind: 'rejected'; rejection: GatewayRejection }
  | { kind: 'answered'; status: number; body: unknown }
  | { kind: 'not-gateway' };

export interface RoutedRequest {
  target: RequestTarget;
  route: ApiRoute;
}

/** A verifier that can also tell which tokens it verified before (verified-token-cache.ts). */
type GatewayVerifier = GatewayDeps['verifier'] & { knows?(token: string): boolean };

export class GatewayPipeline {
  readonly #knownWellFormed: ((token: string) => boolean) | undefined;

  constructor(
    private readonly deps: Pick<GatewayDeps, 'store' | 'environment' | 'allowedHosts'> & { verifier: GatewayVerifier },
    private readonly faults: FaultSwitch,
    private readonly rateLimiter: FixedWindowRateLimiter,
    private readonly backend: PeopleBackend,
  ) {
    const verifier = deps.verifier;
    this.#knownWellFormed = verifier.knows ? (token) => verifier.knows!(token) : undefined;
  }

  async decide(request: RawRequest): Promise<GatewayDecision> {
    if (nonGatewayPaths.has(request.target.split('?')[0] ?? '')) return { kind: 'not-gateway' };

    const routed = this.route(request);
    if ('code' in routed) return rejected(routed);
    const headers = checkHeaderSyntax(request);
    if (headers) return rejected(headers);

    const credential = readBearerCredential(request.header('authorization'), this.#knownWellFormed);
    if (credential.kind === 'none') {
      return rejected(
        reject('000-1201', { headers: { 'www-authenticate': bearerChallenge() }, detail: credential.reason }),
      );
    }
    if (credential.kind === 'malformed') {
      const rejection = invalidTokenRejection('malformed');
      return rejected({ ...rejection, detail: credential.reason });
    }
    const keySource = this.faults.keySourceFault();
    if (keySource) return rejected(keySource);
    const token = await authenticateToken(credential.token, this.deps.verifier, this.deps.environment, this.deps.store);
    if ('code' in token) return rejected(token);

    const principal = principalOf(token);
    const lookups = new LookupsOfOneDecision(this.deps.store.readsOfOneDecision?.() ?? this.deps.store);
    const forbidden = await authorize(principal, routed.route.api, lookups);
    if (forbidden) return rejected(forbidden);

    const rate = this.rateLimiter.take(token.client_id);
    if (!rate.allowed)
      return rejected(
        reject(rate.code, { headers: { 'retry-after': String(rate.retryAfterSeconds) }, detail: 'rate limit' }),
      );

    const apiRequest = checkRequestSyntax(routed.route, routed.target.rawQuery, request);
    if ('code' in apiRequest) return rejected(apiRequest);

    const routing = this.faults.routingFault();
    if (routing) return rejected(routing);

    const answer = await this.backend.handle(principal, apiRequest, lookups);
    if ('code' in answer) return rejected(answer);
    return { kind: 'answered', status: answer.status, body: answer.body };
  }

  /** Steps 1–6, which need nothing but the request line and headers. */
  route(request: RawRequest): RoutedRequest | GatewayRejection {
    const target = checkFramingHostAndTarget(request, this.deps.allowedHosts);
    if ('code' in target) return target;
    const segments = decodePath(target.rawPath);
    if ('code' in segments) return segments;
    const route = resolveApi(request.method, segments);
    if ('code' in route) return route;
    return { target, route };
  }
}

function rejected(rejection: GatewayRejection): GatewayDecision {
  return { kind: 'rejected', rejection };
}
