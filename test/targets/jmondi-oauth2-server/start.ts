// Starts the independent target: the US and EU token servers (@jmondi/oauth2-server) behind the
// spec's paths and the shared gateway (test/targets/shared/serve-target.ts prints the line the tests
// read). Usage: node --import tsx test/targets/jmondi-oauth2-server/start.ts
import { serveTarget } from '../shared/serve-target.ts';
import { createTokenServer, findIntrospectedToken } from './token-servers.ts';

await serveTarget('@jmondi/oauth2-server', (origins, clients, users) => {
  const us = createTokenServer('us', origins.us, clients, users);
  const eu = createTokenServer('eu', origins.eu, clients, users);
  return { handlers: { us: us.handler, eu: eu.handler }, findToken: findIntrospectedToken([us, eu]) };
});
