// Property: whatever form body, encoding, media type or method reaches a token endpoint (US and
// EU), the answer is never a 5xx, never late, never a token for an invalid request, and always the
// error the catalogue expects for the request's faults (token-request.oracle.ts), as a JSON token
// error with a catalogue code, with status 400 (invalid_client: the declared status, or 401 with a
// challenge for HTTP Basic). Each expected answer names the requirement(s) it comes from
// (token-request.oracle.ts); what the answer alone shows is decided by its requirement's judge, the
// one `audit` runs (token-answer.judge.ts): a counterexample FAILs those, nothing else; with
// several faults, only the fault(s) whose request alone is answered wrongly too (fault-isolation.ts).
import { needs, requirement, test, type Region, type TokenResponse } from '../../fixtures/index.ts';
import { interpretationById, requirementById } from '../../requirements/index.ts';
import {
  citeRequirement,
  runAttributedProperty,
  type Finding,
} from '../../fixtures/support/properties/attributed-property.ts';
import { isolateFaults } from '../../fixtures/support/properties/fault-isolation.ts';
import { isolateNoise, withoutMalformedBody } from '../../fixtures/support/properties/noise-isolation.ts';
import { propertyRuns, propertyTag, RequestDeadline } from '../../fixtures/support/properties/property-runner.ts';
import {
  answerIsRight,
  judgeTokenAnswer,
  oracleChoices,
} from '../../fixtures/support/properties/token-answer.judge.ts';
import { noAnswerCause, tokenInputSender } from '../../fixtures/support/properties/token-input.sender.ts';
import {
  oracleInterpretations,
  tokenInputArbitrary,
} from '../../fixtures/support/properties/token-request.arbitrary.ts';
import {
  alternativeAnswers,
  describeExpected,
  describeInput,
  expectedAnswer,
  type TokenInput,
} from '../../fixtures/support/properties/token-request.oracle.ts';

const regions: Region[] = ['us', 'eu'];
/** Every requirement the oracle attributes answers to; AUTH-CLI-002/006/012 (HTTP Basic) are added at run time where the target takes Basic. */
const common = [
  'ERR-TOK-001',
  'ERR-TOK-002',
  'ERR-TOK-004',
  'ERR-TOK-005',
  'TOKEN-REQ-001',
  'TOKEN-REQ-002',
  'TOKEN-REQ-003',
  'TOKEN-REQ-005',
  'TOKEN-REQ-006',
  'TOKEN-REQ-007',
  'TOKEN-REQ-009',
  'TOKEN-REQ-012',
  'TOKEN-REQ-013',
  'AUTH-CLI-005',
  'AUTH-CLI-007',
] as const;
const byRegion: Record<Region, readonly string[]> = {
  us: [...common, 'GRANT-PW-004', 'GRANT-PW-006', 'GRANT-PW-007', 'GRANT-RT-007', 'GRANT-RT-008'],
  eu: [...common, 'GRANT-PW-010', 'GRANT-RT-011'],
};

const basicRequirements = ['AUTH-CLI-002', 'AUTH-CLI-006', 'AUTH-CLI-012'] as const;

test.describe('property: token endpoint input', () => {
  // The two regions share no client (core/run/serial-lanes.ts, laneOfTag): in lanes, on two workers.
  test.describe.configure({ mode: 'parallel' });
  for (const region of regions) {
    const name = `token-input-${region}`;
    const [first, ...rest] = byRegion[region];
    test(
      `token endpoint input at ${region.toUpperCase()}: every generated request gets the answer the catalogue expects, never a 5xx, a hang or a token for an invalid request`,
      requirement(first!, ...rest, needs(region), { tag: [propertyTag(name), '@serial'] }),
      async ({ tokenClient, rawHttp, target, redactor }, testInfo) => {
        const oi = oracleInterpretations((key) => target.interpretation(key));
        // The judges read a request by the interpretations the oracle expects its answer by.
        const choices = oracleChoices(target.profile, oi);
        const basic = target.profile.capabilities.supportsBasic;
        // Basic noise (with or without its client_id in the body) and the Basic-and-form-secret and
        // Basic-and-another-client_id faults exist only where the target takes Basic:
        // only then does this check verify (and cite) the requirements they rely on.
        if (basic) for (const id of basicRequirements) citeRequirement(testInfo, id);
        const send = tokenInputSender(region, {
          tokenClient,
          rawHttp,
          redactor,
          deadline: new RequestDeadline(testInfo),
        });
        const notJudged: string[] = [];
        const judge = async (input: TokenInput): Promise<{ findings: Finding[]; res?: TokenResponse }> => {
          const expected = expectedAnswer(input, oi);
          try {
            const res = await send(input);
            return { findings: judgeTokenAnswer(input, expected, res, choices), res };
          } catch (error) {
            const cause = noAnswerCause(error);
            return {
              findings: expected.requirements.map((requirement) => ({
                requirement,
                expected: describeExpected(expected),
                actual: `no answer: ${cause}`,
              })),
            };
          }
        };
        // A finding on a choice the profile did not declare is a mismatch on an assumption, as in the
        // dedicated checks (judgedOn): it reads WARN naming the field to declare, never FAIL. That is
        // so when the answer is right under another value of the choice, or when it is a refusal and
        // the finding's requirement is judged on that choice (its catalogue interpretation): how a
        // request is refused is the choice. A token, or any answer no reading of the choice allows
        // to succeed, breaks the requirement's MUST part whatever the choice, as the dedicated checks
        // assert before they judge on the choice.
        const assumedExplanation = (input: TokenInput, res: TokenResponse, finding: Finding): Finding['assumed'] => {
          const interpretation = requirementById(finding.requirement).interpretation;
          const judgedOnKey = interpretation !== undefined ? interpretationById(interpretation).key : undefined;
          for (const alt of alternativeAnswers(input, oi)) {
            const choice = target.choice(alt.key);
            if (choice.declared) continue;
            const refused = res.status >= 400 && res.accessToken === undefined;
            const altChoices = oracleChoices(target.profile, { ...oi, [alt.key]: alt.value });
            if (
              (refused && alt.key === judgedOnKey) ||
              judgeTokenAnswer(input, alt.expected, res, altChoices).length === 0
            )
              return [{ quoted: choice.quoted, field: choice.field }];
          }
          return undefined;
        };
        const answersRight = async (input: TokenInput) => {
          try {
            return answerIsRight(input, expectedAnswer(input, oi), await send(input), choices);
          } catch (error) {
            noAnswerCause(error);
            return false; // no answer is not the expected one
          }
        };
        // One answer judged; a wrong one with noise around it is sorted out (noise-isolation.ts), then
        // one with several faults (fault-isolation.ts): each finding names the fault that explains it.
        const check = async (input: TokenInput): Promise<Finding[]> => {
          const own = expectedAnswer(input, oi).requirements;
          const { findings, res } = await judge(input);
          // Control first: a leniently read malformed parameter is blamed only when the same request
          // without it is answered as expected; otherwise that request is the one to judge.
          const control = withoutMalformedBody(input, oi.malformedFormBody);
          if (control && findings.some((f) => own.includes(f.requirement)) && !(await answersRight(control)))
            return check(control);
          const sorted = await isolateNoise(input, own, findings, answersRight);
          if (sorted === 'not-judged') {
            notJudged.push(describeInput(input));
            return [];
          }
          const isolated = await isolateFaults(input, own, sorted, answersRight);
          if (!res) return isolated;
          return isolated.map((f) => {
            const assumed = assumedExplanation(input, res, f);
            return assumed ? { ...f, assumed } : f;
          });
        };

        try {
          await runAttributedProperty(tokenInputArbitrary(region, oi, basic), check, {
            name,
            testInfo,
            runs: propertyRuns(target, 'inputs'),
          });
        } finally {
          if (notJudged.length > 0)
            testInfo.annotations.push({
              type: 'note',
              description: `${notJudged.length} valid request(s) not judged: a plain valid request of the same grant got no token either (that grant's own checks judge it), e.g. ${notJudged[0]}`,
            });
        }
      },
    );
  }
});
