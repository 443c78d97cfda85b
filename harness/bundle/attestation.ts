// The bundle's result as an in-toto attestation: a Statement v1 with the Test Result predicate
// (https://in-toto.io/attestation/test-result/v0.1) in a DSSE envelope signed with the bundle's
// Ed25519 key — the signed statement policy engines already read, beside our own bundle format.
//
// One entry per scored requirement verdict: PASS in `passedTests`, WARN in `warnedTests`, FAIL in
// `failedTests` as the plain ID; every other verdict carries it in the name, `ID (VERDICT)`, so a
// policy asking "is ID in passedTests or warnedTests" never takes a requirement that was not
// verified (BLOCKED, PENDING, SKIP, NOT_APPLICABLE) or a waived deviation for a plain one.
// UNCHECKED (a hole in the suite) is failed, as it fails the run. Requirements outside the scored
// catalogue release are in no list: the catalogue descriptor names them.
//
// DSSE: the signature is over PAE("application/vnd.in-toto+json", statement bytes) =
// "DSSEv1 <len(type)> <type> <len(body)> <body>", lengths in bytes as ASCII decimals.
import { sign, verify, type KeyObject } from 'node:crypto';
import type { ConformanceReport, RequirementResult } from '../reporter/report.schema.ts';
import { publicKeyFingerprint, sha256 } from './bundle.ts';

export const statementType = 'https://in-toto.io/Statement/v1';
export const testResultPredicateType = 'https://in-toto.io/attestation/test-result/v0.1';
export const inTotoPayloadType = 'application/vnd.in-toto+json';

export interface ResourceDescriptor {
  name?: string;
  uri?: string;
  digest?: Record<string, string>;
  annotations?: Record<string, unknown>;
}

export interface TestResultStatement {
  _type: typeof statementType;
  subject: ResourceDescriptor[];
  predicateType: typeof testResultPredicateType;
  predicate: {
    result: 'PASSED' | 'WARNED' | 'FAILED';
    configuration: ResourceDescriptor[];
    passedTests: string[];
    warnedTests: string[];
    failedTests: string[];
  };
}

export interface DsseEnvelope {
  payloadType: string;
  payload: string;
  signatures: { keyid: string; sig: string }[];
}

const resultOf = { PASS: 'PASSED', WARN: 'WARNED', FAIL: 'FAILED' } as const;

/** Which list a requirement verdict goes in, and under what name. */
export function testEntry(r: Pick<RequirementResult, 'id' | 'verdict'>): {
  list: 'passedTests' | 'warnedTests' | 'failedTests';
  name: string;
} {
  switch (r.verdict) {
    case 'PASS':
      return { list: 'passedTests', name: r.id };
    case 'WARN':
      return { list: 'warnedTests', name: r.id };
    case 'FAIL':
      return { list: 'failedTests', name: r.id };
    case 'UNCHECKED':
      return { list: 'failedTests', name: `${r.id} (UNCHECKED)` };
    default:
      return { list: 'warnedTests', name: `${r.id} (${r.verdict})` };
  }
}

export interface StatementInputs {
  report: ConformanceReport;
  /** The bundle's files (path → text) whose digests the statement carries: the reports. */
  reportFiles: Record<string, string>;
  profileSha256?: string;
}

/** The catalogue release the report scored, as a descriptor: its version and the digest of its scored ID list. */
function catalogueDescriptor(report: ConformanceReport): ResourceDescriptor {
  const ids = report.requirements.map((r) => r.id);
  const c = report.catalogue;
  return {
    name: 'token-conformance catalogue',
    // A frozen release is a file of the package; the unreleased catalogue is its requirements.json.
    uri: `pkg:npm/token-conformance@${report.suiteVersion}#requirements/${c?.frozen ? `catalogue-versions/${c.version}.json` : 'requirements.json'}`,
    digest: { sha256: sha256(ids.join('\n')) },
    annotations: {
      version: c?.version ?? 'unreleased',
      frozen: c?.frozen ?? false,
      scored: ids.length,
      ...(report.notScored?.length ? { notScored: report.notScored.map((r) => `${r.id} (${r.verdict})`) } : {}),
    },
  };
}

export function testResultStatement(inputs: StatementInputs): TestResultStatement {
  const { report } = inputs;
  const lists = { passedTests: [] as string[], warnedTests: [] as string[], failedTests: [] as string[] };
  for (const r of report.requirements) {
    const e = testEntry(r);
    lists[e.list].push(e.name);
  }
  const reports: ResourceDescriptor[] = Object.entries(inputs.reportFiles).map(([path, text]) => ({
    name: path,
    digest: { sha256: sha256(text) },
  }));
  const profile: ResourceDescriptor | undefined = inputs.profileSha256
    ? {
        name: `target profile of ${report.target.name} (secrets excluded)`,
        digest: { sha256: inputs.profileSha256 },
        annotations: { target: report.target.name },
      }
    : undefined;
  return {
    _type: statementType,
    // The tested artifact is the target; its profile hash is what identifies it offline. Without
    // one, the statement speaks for the conformance report itself.
    subject: profile ? [profile] : reports.filter((d) => d.name === 'conformance.json'),
    predicateType: testResultPredicateType,
    predicate: {
      result: resultOf[report.verdict],
      configuration: [
        ...(profile ? [profile] : []),
        {
          name: 'token-conformance',
          uri: `pkg:npm/token-conformance@${report.suiteVersion}`,
          annotations: {
            suiteVersion: report.suiteVersion,
            level: report.selection.level,
            strict: report.selection.strict,
          },
        },
        catalogueDescriptor(report),
        ...reports,
      ],
      ...lists,
    },
  };
}

/** DSSE's pre-authentication encoding: the bytes that are signed. */
export function preAuthEncoding(payloadType: string, payload: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`DSSEv1 ${Buffer.byteLength(payloadType)} ${payloadType} ${payload.length} `),
    payload,
  ]);
}

export function signStatement(statement: TestResultStatement, key: KeyObject): DsseEnvelope {
  const payload = Buffer.from(JSON.stringify(statement));
  const sig = sign(null, preAuthEncoding(inTotoPayloadType, payload), key);
  return {
    payloadType: inTotoPayloadType,
    payload: payload.toString('base64'),
    signatures: [{ keyid: publicKeyFingerprint(key), sig: sig.toString('base64') }],
  };
}

export type AttestationCheck = { ok: true; statement: TestResultStatement } | { ok: false; problems: string[] };

/**
 * The envelope verified with `key`: a signature over the PAE, an in-toto Statement v1 with the
 * Test Result predicate, and — given the bundle's files — every report digest it names matching
 * the bundle's file of that name.
 */
export function verifyAttestation(
  raw: unknown,
  key: KeyObject,
  bundleFiles?: Record<string, string>,
): AttestationCheck {
  const e = raw as Partial<DsseEnvelope> | null;
  if (
    !e ||
    typeof e !== 'object' ||
    typeof e.payload !== 'string' ||
    typeof e.payloadType !== 'string' ||
    !Array.isArray(e.signatures)
  ) {
    return { ok: false, problems: ['not a DSSE envelope (payloadType, payload or signatures missing)'] };
  }
  const problems: string[] = [];
  if (e.payloadType !== inTotoPayloadType)
    problems.push(`payloadType is ${e.payloadType}, expected ${inTotoPayloadType}`);
  const payload = Buffer.from(e.payload, 'base64');
  const pae = preAuthEncoding(e.payloadType, payload);
  const signed = e.signatures.some((s) => {
    try {
      return typeof s?.sig === 'string' && verify(null, pae, key, Buffer.from(s.sig, 'base64'));
    } catch {
      return false;
    }
  });
  if (!signed)
    problems.push(
      'no valid signature by this key over the envelope (the statement was altered or signed by another key)',
    );
  let statement: TestResultStatement | undefined;
  try {
    statement = JSON.parse(payload.toString('utf8')) as TestResultStatement;
  } catch (error) {
    problems.push(`payload is not JSON: ${(error as Error).message}`);
  }
  if (statement) {
    const { _type: type, predicateType } = statement as { _type: unknown; predicateType: unknown };
    if (type !== statementType) problems.push(`_type is ${JSON.stringify(type)}, expected ${statementType}`);
    if (predicateType !== testResultPredicateType)
      problems.push(`predicateType is ${JSON.stringify(predicateType)}, expected ${testResultPredicateType}`);
    if (!['PASSED', 'WARNED', 'FAILED'].includes(statement.predicate?.result))
      problems.push('predicate.result is not PASSED, WARNED or FAILED');
    if (bundleFiles) {
      for (const d of statement.predicate?.configuration ?? []) {
        if (d.name === undefined || d.digest?.sha256 === undefined || !(d.name in bundleFiles)) continue;
        if (sha256(bundleFiles[d.name]!) !== d.digest.sha256)
          problems.push(`${d.name}: the attestation's SHA-256 does not match the bundle's file`);
      }
    }
  }
  return problems.length === 0 && statement ? { ok: true, statement } : { ok: false, problems };
}

/** The file an envelope is written to beside a bundle: `<bundle without .json>.intoto.jsonl` (one envelope, one line). */
export function attestationPathFor(bundleFile: string): string {
  return `${bundleFile.replace(/\.json$/, '')}.intoto.jsonl`;
}
