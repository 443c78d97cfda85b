// The seed file: demo clients, users and people that a fresh store starts with. Validated with zod;
// plain secrets and passwords in the file are hashed before they reach the store. Ages are given
// relative to the server's clock at seeding time (`passwordChangedDaysAgo`).
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { DAY_MS } from '../domain/password-policy.ts';
import type { Client, PersonRecord, User } from '../domain/model.ts';
import { isPlausibleUsername } from '../domain/credential-syntax.ts';
import type { SecretHasher } from '../domain/ports.ts';
import type { SeedHashes } from './seed-hash-cache.ts';
import type { SeedRecords } from './server-store.ts';

/** Client ids and secrets: RFC 3986 unreserved characters only, so that they survive any encoding. */
const unreserved = z.string().regex(/^[A-Za-z0-9\-._~]+$/, 'use letters, digits and -._~ only');
const clientIdText = unreserved.max(128, 'client ids have at most 128 characters');
const grantType = z.enum(['client_credentials', 'password', 'refresh_token']);

const seedClient = z.strictObject({
  clientId: clientIdText,
  clientSecret: unreserved.min(16, 'client secrets need at least 16 characters'),
  name: z.string().min(1),
  region: z.enum(['us', 'eu']),
  environment: z.enum(['sandbox', 'production']),
  grants: z.array(grantType).min(1),
  registration: z.strictObject({ tenantId: z.string().min(1), role: z.string().min(1) }).nullable(),
  active: z.boolean().default(true),
  notes: z.string().optional(),
});

const seedUser = z.strictObject({
  username: z
    .string()
    .regex(/^[^\\]+\\[^\\]+$/, 'a username is tenant_system_name\\user_name')
    .refine(isPlausibleUsername, 'a username has at most 256 characters and no control characters'),
  password: z.string().min(1),
  role: z.string().min(1),
  passwordChangedDaysAgo: z.number().min(0),
  active: z.boolean().default(true),
  /** May register the tenant's sandbox clients on the portal. */
  tenantAdmin: z.boolean().default(false),
  notes: z.string().optional(),
});

const seedPerson = z.strictObject({
  identifier: z.string().regex(/^[A-Za-z0-9-]+$/),
  tenantId: z.string().min(1),
  givenName: z.string().min(1),
  familyName: z.string().min(1),
  email: z.email(),
  employmentStatus: z.enum(['active', 'terminated', 'leave']),
  hireDate: z.iso.date(),
});

export const seedFileSchema = z
  .strictObject({
    $comment: z.string().optional(),
    clients: z.array(seedClient),
    users: z.array(seedUser),
    people: z.array(seedPerson),
  })
  .superRefine((seed, ctx) => {
    const dup = (values: string[], what: string, path: string): void => {
      const seen = new Set<string>();
      for (const v of values) {
        if (seen.has(v)) ctx.addIssue({ code: 'custom', message: `duplicate ${what} '${v}'`, path: [path] });
        seen.add(v);
      }
    };
    dup(
      seed.clients.map((c) => c.clientId),
      'clientId',
      'clients',
    );
    dup(
      seed.users.map((u) => u.username),
      'username',
      'users',
    );
    dup(
      seed.people.map((p) => p.identifier),
      'identifier',
      'people',
    );
  });

export type SeedFile = z.infer<typeof seedFileSchema>;

export class SeedFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SeedFileError';
  }
}

/** Reads and validates a seed file; a bad file gives one message naming the file and each problem. */
export async function readSeedFile(path: string): Promise<SeedFile> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new SeedFileError(`seed file ${path}: ${(error as Error).message}`);
  }
  const parsed = seedFileSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    throw new SeedFileError(`seed file ${path} is invalid: ${problems}`);
  }
  return parsed.data;
}

/**
 * Turns a validated seed into store records: secrets hashed, ages anchored at `now`. `known`: hashes
 * of this very seed's secrets made earlier (store/seed-hash-cache.ts), used instead of hashing again.
 */
export async function seedRecords(
  seed: SeedFile,
  hasher: SecretHasher,
  now: number,
  known?: SeedHashes,
): Promise<SeedRecords> {
  const clients = await Promise.all(
    seed.clients.map(async (c): Promise<Client> => ({
      clientId: c.clientId,
      secretHash: known?.clients[c.clientId] ?? (await hasher.hash(c.clientSecret)),
      name: c.name,
      region: c.region,
      environment: c.environment,
      grants: c.grants,
      registration: c.registration,
      active: c.active,
      createdAt: now,
      managedByTenant: null,
      secretHint: null,
    })),
  );
  const users = await Promise.all(
    seed.users.map(async (u): Promise<User> => {
      const [tenant = '', userName = ''] = u.username.split('\\');
      return {
        tenant,
        userName,
        passwordHash: known?.users[u.username] ?? (await hasher.hash(u.password)),
        role: u.role,
        active: u.active,
        tenantAdmin: u.tenantAdmin,
        passwordChangedAt: now - Math.round(u.passwordChangedDaysAgo * DAY_MS),
      };
    }),
  );
  const people = seed.people.map((p): PersonRecord => ({ ...p }));
  return { clients, users, people };
}
