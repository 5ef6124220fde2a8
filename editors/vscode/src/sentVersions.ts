// SentVersions knows, per document, the newest version whose text the
// client has sent the server (didOpen, didChange), and forgets a document
// at didClose: a reopened document starts its versions again, and a
// version remembered from before the close would let a request overtake
// the reopened document's first change.
export class SentVersions {
  private readonly versions = new Map<string, number>();
  private readonly waiters = new Set<() => void>();

  /** opened and changed record what the client sent. */
  opened(uri: string, version: number): void { this.set(uri, version); }
  changed(uri: string, version: number): void { this.set(uri, version); }

  /** closed forgets the document: its next versions are a new document's. */
  closed(uri: string): void { this.versions.delete(uri); }

  /** has tells whether the server has the document at version (or newer) yet. */
  has(uri: string, version: number): boolean { return (this.versions.get(uri) ?? 0) >= version; }

  /** whenSent resolves once the server has the document at version, or after timeoutMs (not to hang on a lost event). */
  whenSent(uri: string, version: number, timeoutMs: number): Promise<void> {
    if (this.has(uri, version)) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve();
      };
      const wake = () => { if (this.has(uri, version)) done(); };
      const timer = setTimeout(done, timeoutMs);
      this.waiters.add(wake);
    });
  }

  private set(uri: string, version: number): void {
    this.versions.set(uri, version);
    for (const wake of [...this.waiters]) wake();
  }
}
