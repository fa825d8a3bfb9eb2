/** Why a run was stopped before it finished: the abort reason of its signal. */

/** The causes of a stop. */
export type StopCause = 'interrupt' | 'rollback' | 'timeout' | 'disconnect' | 'shutdown';

/** The abort reason given to a run's signal. */
export class RunStop extends Error {
  override readonly name = 'RunStop';

  constructor(readonly stopCause: StopCause) {
    super(`run stopped: ${stopCause}`);
  }
}

/** The reason a signal was aborted with, when it is a {@link RunStop}. */
export function stopCauseOf(signal: AbortSignal): StopCause | undefined {
  return signal.aborted && signal.reason instanceof RunStop ? signal.reason.stopCause : undefined;
}
