/**
 * The order in which the run requests of each thread arrived. The server decides what becomes of a new run (queued,
 * refused, or stopping the runs before it) and queues it in that order, not in the order the bodies finished
 * arriving: a request takes its place on its thread's line as it arrives, before its body is read, and creates its
 * run once every request that arrived before it on the thread has created its run or failed.
 *
 * A request whose body is slow to come (a slow client, one that stalls) holds the later ones back for `holdMs` at
 * most, on the system clock (it waits on the network, not on the platform's time): after that they go ahead of it,
 * and it takes its turn after them when its body is in. A line is forgotten once nobody is on it.
 */

/** One request's place on a thread's line. */
export interface ArrivalPlace {
  /** Resolves once every earlier place on the line has left (or held the line for `holdMs`). */
  turn(): Promise<void>;
  /** Leaves the line (the run was created, or the request failed): later places stop waiting for this one. Idempotent. */
  leave(): void;
}

/** The lines of every thread, by key (deployment and thread). */
export class ArrivalLine {
  /** The last place taken on each line, and when every place up to it has left. */
  private readonly lasts = new Map<string, Promise<void>>();

  /** @param holdMs how long a place that has not left holds the later ones back, in milliseconds */
  constructor(private readonly holdMs: number) {}

  /** Number of lines with someone on them. */
  get size(): number {
    return this.lasts.size;
  }

  /** Takes the next place on `key`'s line. */
  arrive(key: string): ArrivalPlace {
    const ahead = this.lasts.get(key) ?? Promise.resolve();
    let release!: () => void;
    const left = new Promise<void>((resolve) => (release = resolve));
    const timer = setTimeout(() => release(), this.holdMs);
    timer.unref();
    const cleared = Promise.all([ahead, left]).then(() => undefined);
    this.lasts.set(key, cleared);
    void cleared.then(() => {
      if (this.lasts.get(key) === cleared) this.lasts.delete(key);
    });
    return {
      turn: () => ahead,
      leave: () => {
        clearTimeout(timer);
        release();
      },
    };
  }
}
