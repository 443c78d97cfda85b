// Ceiling: bare node:http that verifies the bearer token of every request with jose (EdDSA,
// issuer, audience, `typ`, expiry) and answers a fixed person. What a protected call costs
// without a gateway. The token to call it with is printed in the listening line.
import { jwtVerify } from 'jose';
import { serveBare } from './bare-server.ts';
import { AUDIENCE, ISSUER, newBenchKey, signAccessToken } from './jwt-claims.ts';

const key = await newBenchKey();
const person = JSON.stringify({ identifier: 'E-1001', givenName: 'Ada', familyName: 'Lovelace' });
const unauthorized = JSON.stringify({ code: '000-1202', message: 'Unauthorized' });
await serveBare(
  async (request) => {
    const header = request.headers.authorization ?? '';
    if (!header.startsWith('Bearer ')) return { status: 401, body: unauthorized };
    try {
      await jwtVerify(header.slice(7), key.publicKey, {
        algorithms: ['EdDSA'],
        typ: 'at+jwt',
        issuer: ISSUER,
        audience: AUDIENCE,
      });
      return { status: 200, body: person };
    } catch {
      return { status: 401, body: unauthorized };
    }
  },
  { token: await signAccessToken(key, 'bench-client') },
);
