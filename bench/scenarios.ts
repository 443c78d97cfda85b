// The throughput rows of the benchmark: which process serves them and what every connection
// sends. Rows that share a `target` run one after the other against one process of that target.
import type { Pool } from 'undici';
import { EU_TOKEN, PEOPLE_PATH, US_TOKEN, referenceCredentials as cred } from './harness/reference-target.ts';
import type { LoadWorker } from './load/load-generator.ts';
import { formPost, obtainToken, protectedCallWorker, refreshChainWorker, tokenRequestWorker } from './load/workers.ts';
import { PEER_CLIENT } from './targets/peer-client.ts';

export type TargetName =
  | 'reference'
  | 'reference-info-log'
  | 'ceiling-fixed-json'
  | 'ceiling-fastify-fixed-json'
  | 'ceiling-jose-sign'
  | 'ceiling-jose-verify'
  | 'peer-oidc-provider'
  | 'peer-oauth2-server';

export type RowKind = 'reference' | 'ceiling' | 'peer';

export interface ThroughputScenario {
  id: string;
  label: string;
  kind: RowKind;
  target: TargetName;
  /** Connections of this row's closed loop, when not the run's (`--connections`). */
  connections?: number;
  createWorker(listening: Record<string, unknown>, pool: Pool, index: number): Promise<LoadWorker>;
}

const EDDSA_CC = { alg: 'EdDSA', refreshToken: false } as const;
const EDDSA_PAIR = { alg: 'EdDSA', refreshToken: true } as const;
const ccParams = (client: { client_id: string; client_secret: string }) => ({
  grant_type: 'client_credentials',
  ...client,
});
const passwordParams = { grant_type: 'password', ...cred.pw, ...cred.user };

/**
 * The tail rows: client_credentials and its signing ceiling under 50 connections, as load kits
 * such as wrk are often run. With more requests waiting than the server answers at once, pauses
 * of the server's event loop (garbage collection, synchronous work) show in the p99.
 */
export const TAIL_CONNECTIONS = 50;

export const scenarios: readonly ThroughputScenario[] = [
  {
    id: 'ceiling-fixed-json',
    label: 'ceiling: bare node:http, fixed JSON',
    kind: 'ceiling',
    target: 'ceiling-fixed-json',
    createWorker: () => Promise.resolve(tokenRequestWorker('/token', ccParams(PEER_CLIENT), EDDSA_CC)),
  },
  {
    id: 'ceiling-fastify-fixed-json',
    label: 'ceiling: Fastify, fixed JSON (GET, no logger)',
    kind: 'ceiling',
    target: 'ceiling-fastify-fixed-json',
    createWorker: () => Promise.resolve(protectedCallWorker(PEOPLE_PATH, 'not-checked', 'identifier', 'E-1001')),
  },
  {
    id: 'ceiling-jose-sign',
    label: 'ceiling: bare node:http + jose sign (EdDSA)',
    kind: 'ceiling',
    target: 'ceiling-jose-sign',
    createWorker: () => Promise.resolve(tokenRequestWorker('/token', ccParams(PEER_CLIENT), EDDSA_CC)),
  },
  {
    id: 'ceiling-jose-verify',
    label: 'ceiling: bare node:http + jose verify (EdDSA)',
    kind: 'ceiling',
    target: 'ceiling-jose-verify',
    createWorker: (listening) =>
      Promise.resolve(protectedCallWorker(PEOPLE_PATH, String(listening.token), 'identifier', 'E-1001')),
  },
  {
    id: 'peer-oidc-provider',
    label: 'peer: oidc-provider, client_credentials (JWT, EdDSA)',
    kind: 'peer',
    target: 'peer-oidc-provider',
    createWorker: () => Promise.resolve(tokenRequestWorker('/token', ccParams(PEER_CLIENT), EDDSA_CC)),
  },
  {
    id: 'peer-oauth2-server',
    label: 'peer: @node-oauth/oauth2-server, client_credentials (JWT, EdDSA)',
    kind: 'peer',
    target: 'peer-oauth2-server',
    createWorker: () => Promise.resolve(tokenRequestWorker('/token', ccParams(PEER_CLIENT), EDDSA_CC)),
  },
  {
    id: 'ref-cc-us',
    label: 'reference: client_credentials, US',
    kind: 'reference',
    target: 'reference',
    createWorker: () => Promise.resolve(tokenRequestWorker(US_TOKEN, ccParams(cred.usCc), EDDSA_CC)),
  },
  {
    id: 'ref-cc-eu',
    label: 'reference: client_credentials, EU',
    kind: 'reference',
    target: 'reference',
    createWorker: () => Promise.resolve(tokenRequestWorker(EU_TOKEN, ccParams(cred.euCc), EDDSA_CC)),
  },
  {
    id: 'ref-password',
    label: 'reference: password grant',
    kind: 'reference',
    target: 'reference',
    createWorker: () => Promise.resolve(tokenRequestWorker(US_TOKEN, passwordParams, EDDSA_PAIR)),
  },
  {
    id: 'ref-refresh',
    label: 'reference: refresh_token (rotating chains)',
    kind: 'reference',
    target: 'reference',
    createWorker: async (_listening, pool) => {
      const first = await obtainToken(pool, formPost(US_TOKEN, passwordParams), EDDSA_PAIR);
      return refreshChainWorker(US_TOKEN, cred.pw, first.refresh_token!, EDDSA_PAIR);
    },
  },
  {
    id: 'ref-protected',
    label: 'reference: protected call through the gateway',
    kind: 'reference',
    target: 'reference',
    createWorker: async (_listening, pool) => {
      const token = await obtainToken(pool, formPost(US_TOKEN, ccParams(cred.usCc)), EDDSA_CC);
      return protectedCallWorker(PEOPLE_PATH, token.access_token, 'identifier', 'E-1001');
    },
  },
  {
    id: 'ceiling-jose-sign-tail',
    label: `ceiling: bare node:http + jose sign (EdDSA), ${TAIL_CONNECTIONS} connections`,
    kind: 'ceiling',
    target: 'ceiling-jose-sign',
    connections: TAIL_CONNECTIONS,
    createWorker: () => Promise.resolve(tokenRequestWorker('/token', ccParams(PEER_CLIENT), EDDSA_CC)),
  },
  {
    id: 'ref-cc-us-tail',
    label: `reference: client_credentials, US, ${TAIL_CONNECTIONS} connections`,
    kind: 'reference',
    target: 'reference',
    connections: TAIL_CONNECTIONS,
    createWorker: () => Promise.resolve(tokenRequestWorker(US_TOKEN, ccParams(cred.usCc), EDDSA_CC)),
  },
  {
    id: 'ref-cc-us-info-log',
    label: 'reference: client_credentials, US, default log level (info)',
    kind: 'reference',
    target: 'reference-info-log',
    createWorker: () => Promise.resolve(tokenRequestWorker(US_TOKEN, ccParams(cred.usCc), EDDSA_CC)),
  },
];
