// What of a request may reach a log line: the method and the path. The query is dropped (a
// client may put `access_token=` there even though the gateway ignores it) and headers are
// never logged. The app builder wires this as Fastify's `logger.serializers.req`.

export function gatewayRequestSerializer(request: { method?: string; url?: string }): { method: string; path: string } {
  const url = request.url ?? '';
  const question = url.indexOf('?');
  return { method: request.method ?? '', path: question < 0 ? url : url.slice(0, question) };
}
