/**
 * Encode workers hand their chunk buffers to the main thread by transferring them, and the main thread hands them
 * back the same way; a transfer detaches the buffer in the sending thread. V8 compiles typed-array code on the
 * assumption that no ArrayBuffer of the isolate has ever been detached, and the first detach discards all of that
 * code at once (its "ArrayBufferDetaching" protector). A worker sends its first chunk when its first file is done,
 * by which time the encoder's functions were optimised: about 18 of them went back to the interpreter and were
 * compiled a second time. Detaching a throwaway buffer when a thread starts, before any of its code is hot, has V8
 * compile that code once, for the state it will run in (docs/export-benchmark.md gives the figures).
 */

let detached = false;

/** Detaches one empty buffer in the calling thread (once per thread; later calls do nothing). */
export function detachArrayBufferEarly(): void {
  if (detached) return;
  detached = true;
  const buffer = new ArrayBuffer(0);
  structuredClone(buffer, { transfer: [buffer] });
}
