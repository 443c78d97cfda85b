// The format of every successful token response (spec §2.2, §4; RFC 6749 §5.1), judged on one
// response per grant the region offers (success-samples.ts) by each requirement's judge (the one
// `audit` runs on recorded traffic). Each check names every sample that breaks its requirement.
import { expect, needs, requirement, test, type Region } from '../../fixtures/index.ts';
import { successSamples } from '../../fixtures/support/token-responses/success-samples.ts';

const regions: Region[] = ['us', 'eu'];

const formats = [
  {
    id: 'TOKEN-RESP-001',
    title: 'every successful token response has status 200, Content-Type application/json and a JSON object body',
  },
  {
    id: 'TOKEN-RESP-002',
    title: 'the access_token of every token response is a non-empty string of visible ASCII characters',
  },
  { id: 'TOKEN-RESP-003', title: 'the token_type of every token response is exactly Bearer' },
  { id: 'TOKEN-RESP-004', title: 'the expires_in of every token response is a JSON integer greater than 0' },
];

test.describe('token endpoint: successful responses', () => {
  for (const region of regions) {
    const R = region.toUpperCase();
    for (const { id, title } of formats) {
      test(`${id} at ${R} ${title}`, requirement(id, needs(region)), async ({ tokenClient, target, control }) => {
        for (const { label, res } of await successSamples(region, tokenClient, target, control))
          await expect.soft(res, label).toSatisfy(id);
      });
    }
  }
});
