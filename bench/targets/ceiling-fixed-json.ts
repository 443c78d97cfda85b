// Ceiling: bare node:http answering one fixed token response (signed once at start), whatever the
// request. What HTTP alone costs on this machine.
import { serveBare } from './bare-server.ts';
import { LIFETIME_SECONDS, newBenchKey, signAccessToken } from './jwt-claims.ts';

const body = JSON.stringify({
  access_token: await signAccessToken(await newBenchKey(), 'bench-client'),
  token_type: 'Bearer',
  expires_in: LIFETIME_SECONDS,
});
await serveBare(() => ({ status: 200, body }));
