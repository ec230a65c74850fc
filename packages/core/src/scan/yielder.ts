/**
 * The long synchronous steps of a scan (the inventory walk, parsing, the taint pass, the rules) call the returned
 * function between units of work. A Ctrl-C reaches Node as a signal handled on the event loop, so an AbortSignal
 * cannot abort while the loop is blocked: every `sliceMs` of work this gives the loop a turn (progress events go out,
 * a SIGINT handler runs), then throws the signal's reason if the scan was aborted meanwhile. 20 ms keeps a stop well
 * within a quarter of a second and costs a few hundred turns of the loop on the largest packages.
 */
export function createYielder(signal: AbortSignal | undefined, sliceMs = 20): () => Promise<void> {
  let sliceStart = performance.now();
  return async () => {
    if (performance.now() - sliceStart >= sliceMs) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
    signal?.throwIfAborted();
  };
}
