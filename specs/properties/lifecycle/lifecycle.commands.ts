// The command arbitraries of the lifecycle model: the clock-free ones always, advance-clock only
// in the clock variant. Clock steps straddle the boundaries (just under and just over 1 h, 7 days,
// 45 days) so that sequences cross them from both sides; the 45-day password edge is also reached
// relative to the burnable user's declared password age: two hours below it (still accepted) and
// two hours past it (refused), just outside the hour the model leaves unpredicted.
import fc from 'fast-check';
import { AdvanceClockCommand, AdvanceToPasswordEdgeCommand } from './advance-clock.command.ts';
import { CallApiCommand } from './call-api.command.ts';
import { DAY, HOUR, type LifecycleModel, type RealSystem } from './lifecycle.model.ts';
import { ObtainClientCredentialsCommand } from './obtain-client-credentials.command.ts';
import { ObtainPasswordCommand } from './obtain-password.command.ts';
import { RefreshTokenCommand } from './refresh.command.ts';
import { ReuseRefreshTokenCommand } from './reuse-refresh.command.ts';

type Cmd = fc.Arbitrary<fc.AsyncCommand<LifecycleModel, RealSystem>>;

const clockSteps: [number, string][] = [
  [HOUR - 120, '1 h - 2 min'], [HOUR + 120, '1 h + 2 min'], [DAY, '1 day'],
  [7 * DAY - 120, '7 days - 2 min'], [7 * DAY + 120, '7 days + 2 min'], [45 * DAY + 120, '45 days + 2 min'],
];

/** Offsets from the 45-day password edge: beyond PASSWORD_AGE_TOLERANCE plus the timing margin. */
const passwordEdgeSteps: [number, string][] = [
  [-2 * HOUR, 'to 2 h before the 45-day password edge'], [2 * HOUR, 'to 2 h past the 45-day password edge'],
];

export function lifecycleCommands(withClock: boolean): Cmd[] {
  const cmds: Cmd[] = [
    fc.constant(new ObtainClientCredentialsCommand()),
    fc.constant(new ObtainPasswordCommand()),
    fc.nat(7).map((i) => new RefreshTokenCommand(i)),
    fc.nat(7).map((i) => new ReuseRefreshTokenCommand(i)),
    fc.nat(15).map((i) => new CallApiCommand(i)),
  ];
  if (withClock) {
    cmds.push(fc.constantFrom(...clockSteps).map(([s, label]) => new AdvanceClockCommand(s, label)));
    cmds.push(fc.constantFrom(...passwordEdgeSteps).map(([s, label]) => new AdvanceToPasswordEdgeCommand(s, label)));
  }
  return cmds;
}
