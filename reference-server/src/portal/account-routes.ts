// Route group: the signed-in user's own pages, the home page and the password change (open also
// when the password has expired: it is the one way out of the 45-day rule).
import type { FastifyInstance } from 'fastify';
import { passwordPolicyRules } from '../domain/password-policy.ts';
import { changeOwnPassword } from '../domain/portal/change-own-password.ts';
import { PortalRefusal } from '../domain/portal/portal-errors.ts';
import { refusalStatus } from './portal-edge.ts';
import { homeBody, passwordBody, passwordChangedBody, portalPaths } from './pages.ts';
import type { PortalRouteOptions } from './session-guard.ts';

export function accountRoutes(app: FastifyInstance, { edge, guard }: PortalRouteOptions): Promise<void> {
  const { deps } = edge;

  app.get(
    portalPaths.home,
    guard.withSession((_request, reply, who) =>
      edge.send(reply, 200, 'Portal home', homeBody(who.viewer, deps.environment), who.viewer),
    ),
  );

  app.get(
    portalPaths.password,
    guard.withSession(
      (_request, reply, who) =>
        edge.send(
          reply,
          200,
          'Change your password',
          passwordBody({ viewer: who.viewer, rules: passwordPolicyRules }),
          who.viewer,
        ),
      { openWhenExpired: true },
    ),
  );

  app.post(
    portalPaths.password,
    guard.withSession(
      async (request, reply, who) => {
        try {
          const outcome = await changeOwnPassword(
            deps,
            who.user,
            {
              currentPassword: who.form.get('current_password') ?? '',
              newPassword: who.form.get('new_password') ?? '',
              confirmation: who.form.get('confirm_password') ?? '',
            },
            who.session.idHash,
          );
          request.log.info(
            { tenant: who.user.tenant, user: who.user.userName, revokedRefreshTokens: outcome.revokedRefreshTokens },
            'portal password changed',
          );
          const user = (await deps.store.findUser(who.user.tenant, who.user.userName)) ?? who.user;
          const status = edge.passwordStatusOf(user);
          const viewer = { ...who.viewer, user, status };
          return edge.send(reply, 200, 'Password changed', passwordChangedBody(outcome, status), viewer);
        } catch (error) {
          if (!(error instanceof PortalRefusal) || error.reason === 'locked') throw error;
          return edge.send(
            reply,
            refusalStatus[error.reason],
            'Change your password',
            passwordBody({
              viewer: who.viewer,
              rules: passwordPolicyRules,
              message: error.message,
              problems: error.problems,
            }),
            who.viewer,
          );
        }
      },
      { openWhenExpired: true },
    ),
  );
  return Promise.resolve();
}
