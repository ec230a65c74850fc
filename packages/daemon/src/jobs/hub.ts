import type { StoredScanEvent } from '../store/repositories.js';

export type ScanEventSubscriber = (event: StoredScanEvent) => void;

/**
 * In-process fan-out of a scan's stream events to its SSE connections. Events are stored first (ScanRepository
 * appendEvent) and published with their id, so a subscriber that also replays from the store can drop what it
 * has already sent by comparing ids.
 */
export class ScanEventHub {
  private readonly subscribers = new Map<string, Set<ScanEventSubscriber>>();
  private readonly openByClient = new Map<string, number>();

  /**
   * Takes one of a client's stream slots; false when it already holds `limit` open streams. Streams are open to
   * anyone and each holds a connection and a timer, so one address must not be able to open them without end.
   */
  openStream(client: string, limit: number): boolean {
    const open = this.openByClient.get(client) ?? 0;
    if (open >= limit) return false;
    this.openByClient.set(client, open + 1);
    return true;
  }

  closeStream(client: string): void {
    const open = (this.openByClient.get(client) ?? 1) - 1;
    if (open <= 0) this.openByClient.delete(client);
    else this.openByClient.set(client, open);
  }

  streamsOf(client: string): number {
    return this.openByClient.get(client) ?? 0;
  }

  subscribe(scanId: string, subscriber: ScanEventSubscriber): () => void {
    let set = this.subscribers.get(scanId);
    if (set === undefined) {
      set = new Set();
      this.subscribers.set(scanId, set);
    }
    set.add(subscriber);
    return () => {
      set.delete(subscriber);
      if (set.size === 0) this.subscribers.delete(scanId);
    };
  }

  publish(scanId: string, event: StoredScanEvent): void {
    for (const subscriber of this.subscribers.get(scanId) ?? []) subscriber(event);
  }

  /** Open connections, for tests and the shutdown log. */
  get connections(): number {
    let total = 0;
    for (const set of this.subscribers.values()) total += set.size;
    return total;
  }
}
