// The fault catalogue: every fault of self-validation/faults/*.ts, in run order.
import type { Fault } from '../fault.ts';
import { accountStateFaults } from './account-state.ts';
import { advisory2026Faults } from './advisories-2026.ts';
import { clientIdentityFaults } from './client-identity.ts';
import { declarationFaults } from './declarations.ts';
import { errorFaults } from './errors.ts';
import { fieldBugFaults } from './field-bugs.ts';
import { gatewayCodeFaults } from './gateway-codes.ts';
import { gatewayFaults } from './gateway.ts';
import { grantFaults } from './grants.ts';
import { lifecycleFaults } from './lifecycle.ts';
import { lifetimeHonestyFaults } from './lifetime-honesty.ts';
import { nothingIssuedFaults } from './nothing-issued.ts';
import { oneFieldFaults } from './one-field.ts';
import { tokenRequestFaults } from './token-requests.ts';
import { tokenResponseFaults } from './token-responses.ts';
import { transportFaults } from './transport.ts';

export const faults: Fault[] = [
  ...tokenResponseFaults,
  ...oneFieldFaults,
  ...nothingIssuedFaults,
  ...tokenRequestFaults,
  ...grantFaults,
  ...errorFaults,
  ...gatewayFaults,
  ...lifecycleFaults,
  ...transportFaults,
  ...gatewayCodeFaults,
  ...fieldBugFaults,
  ...advisory2026Faults,
  ...accountStateFaults,
  ...lifetimeHonestyFaults,
  ...clientIdentityFaults,
  ...declarationFaults,
];

/**
 * MUST requirements no fault reaches, each with the reason. The self-validation fails on any MUST
 * that is neither reached by a detected fault nor listed here.
 */
export const unreachable: Record<string, string> = {};
