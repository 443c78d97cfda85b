// Row → domain record, for the mappings that read the same in every store (SQLite and PostgreSQL
// name their columns alike and both hand back plain values for these). Clients and users stay
// with their store: booleans and JSON columns differ between the two.
import type { PersonRecord, RefreshTokenRecord } from '../domain/model.ts';
import type { PortalSession } from '../domain/portal/portal-ports.ts';
import type { FailedAttempts } from '../domain/ports.ts';

export type Row = Record<string, unknown>;

export const str = (v: unknown): string => String(v);
export const int = (v: unknown): number => Number(v);
export const intOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
export const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : str(v));

export function toSession(r: Row): PortalSession {
  return {
    idHash: str(r.id_hash),
    tenant: str(r.tenant),
    userName: str(r.user_name),
    csrfToken: str(r.csrf_token),
    createdAt: int(r.created_at),
    lastSeenAt: int(r.last_seen_at),
  };
}

export function toRefreshToken(r: Row): RefreshTokenRecord {
  return {
    tokenHash: str(r.token_hash),
    familyId: str(r.family_id),
    clientId: str(r.client_id),
    tenant: str(r.tenant),
    userName: str(r.user_name),
    scope: str(r.scope),
    issuedAt: int(r.issued_at),
    expiresAt: int(r.expires_at),
    usedAt: intOrNull(r.used_at),
    revokedAt: intOrNull(r.revoked_at),
  };
}

export function toFailedAttempts(r: Row): FailedAttempts {
  return { failures: int(r.failures), lastFailureAt: int(r.last_failure_at), lockedUntil: intOrNull(r.locked_until) };
}

export function toPerson(r: Row): PersonRecord {
  return {
    identifier: str(r.identifier),
    tenantId: str(r.tenant_id),
    givenName: str(r.given_name),
    familyName: str(r.family_name),
    email: str(r.email),
    employmentStatus: str(r.employment_status) as PersonRecord['employmentStatus'],
    hireDate: str(r.hire_date),
  };
}
