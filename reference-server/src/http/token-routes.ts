// The two token endpoints. HTTP concerns only: method, media type, the strict form parser, the
// Authorization header, the response headers (no-store on every answer) and the mapping of
// domain errors to status codes. The decisions are the domain's (TokenService).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  InvalidClient,
  InvalidRequest,
  MethodNotAllowed,
  OAuthError,
  ServerError,
  TooManyAttempts,
  descriptions,
} from '../domain/errors.ts';
import type { Region } from '../domain/model.ts';
import type { TokenService } from '../domain/token-service.ts';
import { readAuthorization } from './authorization-header.ts';
import { FormBodyError, readTokenForm } from './form-body.ts';
import { sourceOf } from './source-address.ts';

export const US_TOKEN_PATH = '/api/v1/auth/oauth2/token';
export const EU_TOKEN_PATH = '/oauth2/default/v1/token';
export const BASIC_CHALLENGE = 'Basic realm="token-service"';

export interface TokenRoutesOptions {
  tokenService: TokenService;
  bodyLimit: number;
}

export function tokenRoutes(app: FastifyInstance, options: TokenRoutesOptions): Promise<void> {
  // The body reaches the handler as raw bytes whatever its media type: the handler decides.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: options.bodyLimit }, (_request, body, done) => {
    done(null, body);
  });
  // A callback hook, not an async one: no promise per answer.
  app.addHook('onSend', (_request, reply, payload, done) => {
    reply.header('cache-control', 'no-store');
    reply.header('pragma', 'no-cache');
    done(null, payload);
  });
  app.setErrorHandler((error: Error & { code?: string; statusCode?: number }, request, reply) => {
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      return sendError(request, reply, new InvalidRequest(descriptions.bodyTooLarge));
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      return sendError(request, reply, new InvalidRequest(descriptions.malformedBody, error.code));
    }
    return sendError(request, reply, unexpected(request, error));
  });

  for (const [url, region] of [
    [US_TOKEN_PATH, 'us'],
    [EU_TOKEN_PATH, 'eu'],
  ] as const) {
    app.all(url, async (request, reply) => handleToken(options.tokenService, region, request, reply));
  }
  return Promise.resolve();
}

async function handleToken(
  service: TokenService,
  region: Region,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  try {
    if (request.method !== 'POST') throw new MethodNotAllowed();
    const params = readForm(request);
    const result = await service.handle({
      region,
      params,
      authorization: readAuthorization(request.headers.authorization),
      source: sourceOf(request.ip),
    });
    request.log.info({ client_id: result.clientId, grant_type: result.grantType, region }, 'token issued');
    return reply.code(200).type('application/json; charset=utf-8').send(result.body);
  } catch (error) {
    return sendError(request, reply, error instanceof OAuthError ? error : unexpected(request, error));
  }
}

function readForm(request: FastifyRequest): Map<string, string> {
  try {
    return readTokenForm(request.headers['content-type'], request.body);
  } catch (error) {
    if (!(error instanceof FormBodyError)) throw error;
    const description = {
      'not-form': descriptions.notForm,
      malformed: descriptions.malformedBody,
      repeated: descriptions.repeatedParameter,
    }[error.problem];
    throw new InvalidRequest(description, error.message);
  }
}

function unexpected(request: FastifyRequest, error: unknown): ServerError {
  request.log.error({ err: error }, 'unexpected error at the token endpoint');
  return new ServerError();
}

function sendError(request: FastifyRequest, reply: FastifyReply, error: OAuthError): FastifyReply {
  if (error.status < 500) request.log.info({ error: error.error, detail: error.detail }, 'token request refused');
  if (error instanceof MethodNotAllowed) reply.header('allow', 'POST');
  if (error instanceof InvalidClient && error.challenge) reply.header('www-authenticate', BASIC_CHALLENGE);
  if (error instanceof TooManyAttempts) reply.header('retry-after', String(error.retryAfterSeconds));
  return reply.code(error.status).type('application/json; charset=utf-8').send(error.toJSON());
}
