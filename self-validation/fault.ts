// A fault of the self-validation catalogue: what it does to an otherwise-correct target (through
// the proxy), and which requirements it must make FAIL or WARN.
import type { ProxyFault } from './proxy.ts';

export interface Credential {
  clientId: string;
  clientSecret: string;
}
export interface UserCredential {
  username: string;
  password: string;
}

/** What a fault may know of the target: the profile's (demo) credentials and the other environment's token. */
export interface FaultEnv {
  clients: Partial<Record<string, Credential>>;
  users: Partial<Record<string, UserCredential>>;
  otherEnvironmentToken?: string;
}

export interface Fault {
  /** Stable id, kebab-case: the matrix row and the reports directory name. */
  id: string;
  /** One line: what the broken target does. */
  title: string;
  /** Requirement IDs that MUST read FAIL or WARN under this fault. */
  breaks: string[];
  /**
   * Requirements this fault also breaks, legitimately, with the reason (e.g. a check whose setup
   * goes through the broken path). They may FAIL/WARN without counting as false alarms; they are
   * shown as such in the matrix.
   */
  collateral?: { ids: string[]; reason: string };
  /**
   * Extra requirement IDs whose checks are run too. By default a fault runs the checks of `breaks`,
   * of `collateral` and of the sentinels (run-self-validation.ts), selected by their `@<ID>` tags;
   * with `withProperties`, the property checks citing one of them run too (and must not fail).
   */
  alsoRun?: string[];
  /**
   * Also run the property checks (`specs/properties/`) that cite one of `breaks`, and count a failed
   * one as detecting the fault. The CI run takes property checks only for the faults that ask
   * (each property is aimed at by some fault); `--full` runs them under every fault.
   */
  withProperties?: boolean;
  /** Run only the checks of these requirement IDs, no sentinels (for faults that break transport for everything). */
  onlyChecksOf?: string[];
  /**
   * Why this fault needs a reference server of its own (it burns server state a later fault would
   * see: locked users, spent quotas, a moved clock). Without it the fault runs against the
   * shared server, unless one of its selected checks is @clock/@serial (those always get a fresh one).
   */
  freshServer?: string;
  /**
   * Interpretations declared in the fault's profile instead of the reference's (profiles/README.md).
   * A declaration fault leaves the target alone (an empty proxy) and declares what it does not do:
   * it shows that a check of an INTERPRETATION requirement follows the declaration.
   */
  declare?: Record<string, unknown>;
  /**
   * Interpretations the fault's profile leaves undeclared (the reference profile declares every
   * one): the suite then only assumes the reference choice, so the fault's `breaks` must read WARN
   * naming what to declare, never FAIL — an **assumption fault**.
   */
  undeclare?: string[];
  /**
   * The one verdict every `breaks` ID must read (else it is missed): 'WARN' for a fault against a
   * choice the profile does not declare — a FAIL there would judge an assumption as a declaration.
   */
  breaksAs?: 'WARN';
  /**
   * The profile's addresses (authUrlUs, authUrlEu, baseUrl) are the proxy's plain-HTTP listener
   * (needs `plainHttp` from create), and the profile does not mark the target local: a deployment
   * that serves the spec's endpoints without TLS (a local one reads the TLS checks NOT_APPLICABLE).
   */
  addressesOverPlainHttp?: true;
  create(env: FaultEnv): ProxyFault;
}
