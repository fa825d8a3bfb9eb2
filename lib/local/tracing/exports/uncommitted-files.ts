/**
 * Files that export runs started to write and never committed, once their runs have ended for good. Each file's name
 * is recorded before its first request and forgotten by the checkpoint that commits it (run-executor.ts). A run that
 * goes on writes the same name again at its next attempt, replacing whatever is there; a run that ended (its export
 * completed, failed, was cancelled or timed out) never will, so an object under a name it left uncommitted would stay
 * in the bucket with no run's `exported_files` listing it. That happens when the answer to the request that made the
 * object was lost (the store carried it out, the platform never heard so), or when the platform stopped or was killed
 * while such a request was under way for a run that was not to resume.
 *
 * Such names are deleted from the bucket: after an attempt of the run ends (the platform is running), and at start
 * (after a crash). One try per name and process: a name whose delete is refused (no delete permission, the
 * destination gone) is forgotten with a log line; when the store cannot be reached, that name and the destination's
 * others are tried again at the next start. A delete that goes out while a lost request is still being carried out by the store could come first; that
 * is left to the bucket's lifecycle rule, as multipart uploads cut off by a crash are.
 */
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { createDestinationClient, credentialRedactor, type S3ClientLimits } from '../destinations/s3';
import { classifyStorageError, isPermanentStorageFailure } from '../destinations/storage-errors';
import type { DestinationStore } from '../destinations/store';
import type { ExportStore, UncommittedFile } from './store';

/** Deletes the objects that runs which ended for good left uncommitted; one pass at a time, in the background. */
export class UncommittedFileSweeper {
  private pass: Promise<void> | undefined;
  private again = false;
  /** Names tried in this process whose delete could not reach the store: left for the next start. */
  private readonly deferred = new Set<string>();

  constructor(
    private readonly store: ExportStore,
    private readonly destinations: DestinationStore,
    private readonly limits: S3ClientLimits,
    private readonly log: (line: string) => void,
  ) {}

  /** The engine starts (again): every name is tried once more. */
  restart(): void {
    this.deferred.clear();
  }

  /**
   * Starts a pass over the files of final runs, unless `busy` says a run still has an attempt in flight (it may yet
   * commit its file). Cheap when there is nothing to delete; a call during a pass makes another pass follow it.
   */
  sweep(busy: (runId: string) => boolean, signal: AbortSignal): void {
    if (signal.aborted) return;
    if (this.pass) {
      this.again = true;
      return;
    }
    const due = this.store
      .uncommittedFilesOfFinalRuns()
      .filter((file) => !busy(file.runId) && !this.deferred.has(`${file.runId} ${file.key}`));
    if (due.length === 0) return;
    this.pass = this.delete(due, signal).finally(() => {
      this.pass = undefined;
      if (!this.again) return;
      this.again = false;
      this.sweep(busy, signal);
    });
  }

  /** Resolves once no pass is under way (after a shutdown's abort, at once). */
  async settled(): Promise<void> {
    while (this.pass) await this.pass;
  }

  private async delete(files: readonly UncommittedFile[], signal: AbortSignal): Promise<void> {
    for (const destinationId of new Set(files.map((file) => file.destinationId))) {
      const ofDestination = files.filter((file) => file.destinationId === destinationId);
      let destination: ReturnType<DestinationStore['resolve']>;
      try {
        destination = this.destinations.resolve(destinationId);
      } catch {
        // credentials that cannot be opened: as gone
      }
      if (!destination) {
        for (const file of ofDestination) this.giveUp(file, 'its destination is deleted or unreadable');
        continue;
      }
      const redactor = credentialRedactor(destination.credentials);
      const client = createDestinationClient(destination.destination.config, destination.credentials, this.limits);
      try {
        for (const [index, file] of ofDestination.entries()) {
          if (signal.aborted) return;
          try {
            await client.send(new DeleteObjectCommand({ Bucket: destination.destination.config.bucket_name, Key: file.key }), { abortSignal: signal });
            this.store.forgetUncommittedFile(file.runId, file.key);
          } catch (err) {
            // stopped by a shutdown: tried again at the next start
            if (signal.aborted) return;
            const failure = classifyStorageError(err);
            const reason = redactor.redact(failure.description);
            if (isPermanentStorageFailure(failure.kind)) {
              this.giveUp(file, reason);
              continue;
            }
            // the store is away: its other names wait for the next start too, rather than each for its own timeout
            const waiting = ofDestination.slice(index);
            for (const later of waiting) this.deferred.add(`${later.runId} ${later.key}`);
            this.log(
              `bulk export ${file.exportId}: could not delete ${waiting.length} file(s) its runs left uncommitted, ${file.key} first ` +
                `(${reason}); tried again at the next start`,
            );
            break;
          }
        }
      } finally {
        client.destroy();
      }
    }
  }

  private giveUp(file: UncommittedFile, reason: string): void {
    this.store.forgetUncommittedFile(file.runId, file.key);
    this.log(`bulk export ${file.exportId}: ${file.key}, which its run left uncommitted, may stay in the bucket: ${reason}`);
  }
}
