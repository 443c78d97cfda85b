// Starts the independent target: the US and EU token servers (oidc-provider) behind the spec's paths
// and the shared gateway (test/targets/shared/serve-target.ts prints the line the tests read).
// Usage: node --import tsx test/targets/oidc-provider/start.ts
import { serveTarget } from '../shared/serve-target.ts';
import { createProvider, findProviderToken } from './providers.ts';

await serveTarget('oidc-provider', (origins, clients, users) => {
  const us = createProvider('us', origins.us, clients, users);
  const eu = createProvider('eu', origins.eu, clients, users);
  return { handlers: { us: us.callback(), eu: eu.callback() }, findToken: findProviderToken([us, eu]) };
});
