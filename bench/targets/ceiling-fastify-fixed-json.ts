// Ceiling: Fastify (the reference server's framework, its defaults, no logger) answering one fixed
// person to every GET. What the framework costs per answer before any gateway work: the floor a
// protected call with a verified-token cache hit stands on.
import Fastify from 'fastify';

const person = JSON.stringify({ identifier: 'E-1001', givenName: 'Ada', familyName: 'Lovelace' });
const app = Fastify({ logger: false, keepAliveTimeout: 30_000 });
app.get('*', (_request, reply) => {
  void reply.header('content-type', 'application/json').header('cache-control', 'no-store').send(person);
});
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`${JSON.stringify({ event: 'listening', baseUrl: address })}\n`);
process.once('SIGTERM', () => void app.close());
