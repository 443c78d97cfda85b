// Ceiling: bare node:http that signs one new access token per request with jose (Ed25519/EdDSA,
// the reference server's claims). What issuing a JWT costs without any OAuth logic.
import { serveBare } from './bare-server.ts';
import { LIFETIME_SECONDS, newBenchKey, signAccessToken } from './jwt-claims.ts';

const key = await newBenchKey();
await serveBare(async () => ({
  status: 200,
  body: JSON.stringify({
    access_token: await signAccessToken(key, 'bench-client'),
    token_type: 'Bearer',
    expires_in: LIFETIME_SECONDS,
  }),
}));
