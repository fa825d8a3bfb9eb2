/** Why a run was stopped before it finished: the abort reason of its signal, and the cause it ends with. */

/** The causes of a stop; `delete` is the deletion of the run's thread. */
export type StopCause = 'interrupt' | 'rollback' | 'timeout' | 'disconnect' | 'shutdown' | 'delete';

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

/**
 * What a later stop of a run being stopped can still change: a rollback undoes what the run did, whatever stopped
 * it first, and a deleted thread leaves nothing to write to, whatever was asked before.
 */
const RANK: Readonly<Record<StopCause, number>> = {
  interrupt: 0,
  timeout: 0,
  disconnect: 0,
  shutdown: 0,
  rollback: 1,
  delete: 2,
};

/** The stops of one execution: the signal it watches, and the cause it ends with. */
export class RunStopper {
  private readonly controller = new AbortController();
  private stopCause: StopCause | undefined;

  /** Aborted at the first stop. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The cause the run ends with: the first stop's, unless a later one outranks it. Undefined until stopped. */
  get cause(): StopCause | undefined {
    return this.stopCause;
  }

  /** Stops the run; a stop that comes while it is being stopped may change the cause (see {@link RANK}). */
  stop(cause: StopCause): void {
    if (this.stopCause === undefined || RANK[cause] > RANK[this.stopCause]) this.stopCause = cause;
    this.controller.abort(new RunStop(cause));
  }
}
