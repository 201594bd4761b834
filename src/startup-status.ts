/** What the app asks while it serves: is start-up work (migrations, demo data) still pending, and why. */
export interface StartupStatus {
  /** A short reason while start-up work is pending; undefined once it is done. */
  pending(): string | undefined;
}

/** The status of an app with nothing to wait for. */
export const STARTED: StartupStatus = { pending: () => undefined };
