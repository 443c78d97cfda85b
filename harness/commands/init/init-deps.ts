// What `init` reaches beyond its flags (the suite's checks, the target, the terminal), injectable for tests.
import type { PeopleFound, PeopleTarget } from '../../init/find-people.ts';
import type { AskLine } from '../../init/learn-deployment.ts';
import type { TokenPoster } from '../../preflight/token-post.ts';
import type { ListedCheck } from '../run-selection.ts';

export interface InitDeps {
  /** The suite's checks with their annotations (Playwright's listing); injectable for tests. */
  listChecks?: () => Promise<ListedCheck[]>;
  /** Asks the target for people identifiers; injectable for tests. */
  findPeople?: (
    t: PeopleTarget,
    given: { existing?: string[]; missing?: string; malformed?: string },
  ) => Promise<PeopleFound>;
  /** The token requests of the deployment probe; injectable for tests. */
  poster?: (caFile: string | undefined) => TokenPoster;
  /** A question on the terminal (the deployment probe asks what a refusal points to); absent: no questions. */
  ask?: AskLine;
  env?: NodeJS.ProcessEnv;
}
