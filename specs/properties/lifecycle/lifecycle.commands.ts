// The command arbitraries of the lifecycle model: the clock-free ones always, advance-clock only
// in the clock variant. Clock steps straddle the boundaries (just under and just over 1 h, 7 days,
// 45 days) so that sequences cross them from both sides.
import fc from 'fast-check';
import { AdvanceClockCommand } from './advance-clock.command.ts';
import { CallApiCommand } from './call-api.command.ts';
import { DAY, HOUR, type LifecycleModel, type RealSystem } from './lifecycle.model.ts';
import { ObtainClientCredentialsCommand } from './obtain-client-credentials.command.ts';
import { ObtainPasswordCommand } from './obtain-password.command.ts';
import { RefreshCommand } from './refresh.command.ts';
import { ReuseRefreshCommand } from './reuse-refresh.command.ts';

type Cmd = fc.Arbitrary<fc.AsyncCommand<LifecycleModel, RealSystem>>;

const clockSteps: [number, string][] = [
  [HOUR - 120, '1 h - 2 min'], [HOUR + 120, '1 h + 2 min'], [DAY, '1 day'],
  [7 * DAY - 120, '7 days - 2 min'], [7 * DAY + 120, '7 days + 2 min'], [45 * DAY + 120, '45 days + 2 min'],
];

export function lifecycleCommands(withClock: boolean): Cmd[] {
  const cmds: Cmd[] = [
    fc.constant(new ObtainClientCredentialsCommand()),
    fc.constant(new ObtainPasswordCommand()),
    fc.nat(7).map((i) => new RefreshCommand(i)),
    fc.nat(7).map((i) => new ReuseRefreshCommand(i)),
    fc.nat(15).map((i) => new CallApiCommand(i)),
  ];
  if (withClock) cmds.push(fc.constantFrom(...clockSteps).map(([s, label]) => new AdvanceClockCommand(s, label)));
  return cmds;
}
