// Route group: a tenant admin's sandbox client applications: list and register, then rotate a
// secret or delete a client, each behind a confirmation page (a GET) and done by its POST. New
// secrets are shown once, in the answer to that POST (no-store), never redirected to.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { PortalRefusal, portalMessages } from '../domain/portal/portal-errors.ts';
import {
  deleteSandboxClient,
  findSandboxClient,
  listSandboxClients,
  registerSandboxClient,
  rotateSandboxClientSecret,
} from '../domain/portal/sandbox-clients.ts';
import { refusalStatus } from './portal-edge.ts';
import {
  PORTAL_PREFIX,
  clientDeletedBody,
  clientsBody,
  confirmBody,
  credentialsBody,
  emptyClientForm,
  portalPaths,
  type ClientFormValues,
} from './pages.ts';
import type { PortalRouteOptions, SignedIn, WithForm } from './session-guard.ts';

const requireAdmin = (who: SignedIn): void => {
  if (!who.user.tenantAdmin) throw new PortalRefusal('forbidden', portalMessages.notAdmin);
};

function submittedClient(who: WithForm): ClientFormValues {
  return {
    name: who.form.get('name') ?? '',
    region: who.form.get('region') ?? '',
    clientCredentials: who.form.get('grant_client_credentials') === 'on',
    password: who.form.get('grant_password') === 'on',
    role: who.form.get('role') ?? emptyClientForm.role,
  };
}

export function sandboxClientRoutes(app: FastifyInstance, { edge, guard }: PortalRouteOptions): Promise<void> {
  const { deps } = edge;

  const clientsPage = async (
    reply: FastifyReply,
    status: number,
    who: SignedIn,
    extra: { values?: ClientFormValues; message?: string; problems?: readonly string[] } = {},
  ): Promise<FastifyReply> => {
    const clients = deps.environment === 'sandbox' ? await listSandboxClients(deps, who.user) : [];
    return edge.send(
      reply,
      status,
      'Client applications',
      clientsBody({
        viewer: who.viewer,
        environment: deps.environment,
        clients,
        roles: deps.settings.sandboxRoles,
        contact: deps.settings.dataServicesContact,
        ...extra,
      }),
      who.viewer,
    );
  };

  app.get(
    portalPaths.clients,
    guard.withSession((_request, reply, who) => {
      requireAdmin(who);
      return clientsPage(reply, 200, who);
    }),
  );

  app.post(
    portalPaths.clients,
    guard.withSession(async (request, reply, who) => {
      requireAdmin(who);
      const values = submittedClient(who);
      try {
        const issued = await registerSandboxClient(deps, who.user, values);
        request.log.info(
          { client_id: issued.client.clientId, tenant: who.user.tenant },
          'portal sandbox client registered',
        );
        return edge.send(
          reply,
          201,
          'Client registered',
          credentialsBody(issued.client, issued.clientSecret, false),
          who.viewer,
        );
      } catch (error) {
        if (!(error instanceof PortalRefusal) || (error.reason !== 'invalid-input' && error.reason !== 'limit-reached'))
          throw error;
        return clientsPage(reply, refusalStatus[error.reason], who, {
          values,
          message: error.message,
          problems: error.problems,
        });
      }
    }),
  );

  for (const action of ['rotate', 'delete'] as const) {
    const path = `${PORTAL_PREFIX}/clients/:clientId/${action}`;
    const title = action === 'rotate' ? 'Rotate the client secret' : 'Delete the client application';
    app.get(
      path,
      guard.withSession(async (request, reply, who) => {
        requireAdmin(who);
        const client = await findSandboxClient(deps, who.user, (request.params as { clientId: string }).clientId);
        return edge.send(reply, 200, title, confirmBody(who.viewer, client, action), who.viewer);
      }),
    );
    app.post(
      path,
      guard.withSession(async (request, reply, who) => {
        requireAdmin(who);
        const clientId = (request.params as { clientId: string }).clientId;
        if (action === 'rotate') {
          const issued = await rotateSandboxClientSecret(deps, who.user, clientId);
          request.log.info({ client_id: clientId, tenant: who.user.tenant }, 'portal client secret rotated');
          return edge.send(
            reply,
            200,
            'Secret rotated',
            credentialsBody(issued.client, issued.clientSecret, true),
            who.viewer,
          );
        }
        const deleted = await deleteSandboxClient(deps, who.user, clientId);
        request.log.info({ client_id: clientId, tenant: who.user.tenant }, 'portal sandbox client deleted');
        return edge.send(reply, 200, 'Client deleted', clientDeletedBody(deleted), who.viewer);
      }),
    );
  }
  return Promise.resolve();
}
