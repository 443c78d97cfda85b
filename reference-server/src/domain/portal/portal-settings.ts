// Tunables of the portal. Session lifetimes follow common practice for an administrative web
// application (OWASP ASVS 3.3: an idle timeout, and an absolute one that forces a new sign-in).
import { DEFAULT_PASSWORD_MAX_AGE_DAYS } from '../password-policy.ts';

export interface PortalSettings {
  /** A session unused this long is over. */
  sessionIdleSeconds: number;
  /** A session is over this long after sign-in, used or not. */
  sessionAbsoluteSeconds: number;
  /** The 45-day rule (spec §1, §5.5). */
  passwordMaxAgeDays: number;
  /** From this many days before the limit, the portal warns. */
  passwordWarningDays: number;
  /** Sandbox clients one tenant may register on the portal. */
  maxSandboxClientsPerTenant: number;
  /** Data Services roles a sandbox client may be registered with. */
  sandboxRoles: readonly string[];
  /** Where production registrations go (spec §5.3: "by e-mail to <SUPPORT_EMAIL>"). */
  dataServicesContact: string;
}

export const defaultPortalSettings: PortalSettings = {
  sessionIdleSeconds: 900,
  sessionAbsoluteSeconds: 8 * 3600,
  passwordMaxAgeDays: DEFAULT_PASSWORD_MAX_AGE_DAYS,
  passwordWarningDays: 7,
  maxSandboxClientsPerTenant: 20,
  sandboxRoles: ['people-reader', 'people-writer', 'reporting'],
  dataServicesContact: 'data-services@example.com',
};
