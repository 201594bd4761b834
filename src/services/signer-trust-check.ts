import type { Logger } from 'pino';
import { Poller } from '../poller.js';
import type { StartupStatus } from '../startup-status.js';
import type { ValidatorCheck, ValidatorRef } from './claim-signatures.js';

/** Validators asked at start: the active campaigns' most recent, a bounded number of RPC calls. */
export const VALIDATORS_CHECKED_AT_START = 200;

export interface SignerTrustCheckOptions {
  /** Whether the service has a key at all: without one there is nothing to check. */
  canSign: boolean;
  /** The validators to ask (the active campaigns'). */
  validators: () => Promise<ValidatorRef[]>;
  check: (validators: readonly ValidatorRef[]) => Promise<ValidatorCheck>;
  /** Whether start-up work (migrations) is done: the check reads the campaigns after it. */
  startup: StartupStatus;
  /** The addresses the service signs as, for the log. */
  signers: readonly string[];
  logger: Pick<Logger, 'info' | 'warn'>;
  /** Pause between tries while start-up is pending or the database fails (default 1 s). */
  retryMs?: number;
}

/**
 * Once, at start: do the active campaigns' validators trust one of the service's keys? An operator
 * learns at once that the key is not the one the validators were given, rather than from the
 * refusals (`validator_does_not_trust_this_signer`) of GET /signatures later. The answers warm the
 * cache the requests read. It logs one line: info when every validator it could ask trusts a key,
 * a warning naming a few that do not otherwise.
 */
export class SignerTrustCheck {
  private done = false;
  private readonly poller: Poller;
  private finished: () => void = () => undefined;
  /** Settles once the check has logged its line (tests wait for it). */
  readonly checked = new Promise<void>((resolve) => (this.finished = resolve));

  constructor(private readonly options: SignerTrustCheckOptions) {
    this.poller = new Poller({
      round: () => this.round(),
      pause: () => (this.done ? 2 ** 31 - 1 : (options.retryMs ?? 1_000)),
      onError: (error, again) => {
        if (!again) options.logger.warn({ err: error }, 'GET /signatures could not check the validators of the active campaigns; it tries again');
      },
    });
  }

  start(): void {
    if (this.options.canSign) this.poller.start();
  }

  async close(): Promise<void> {
    await this.poller.close();
  }

  private async round(): Promise<void> {
    if (this.done || this.options.startup.pending() !== undefined) return;
    const validators = await this.options.validators();
    const { trusting, refusing, unreadable } = await this.options.check(validators);
    this.done = true;
    const details = { signers: this.options.signers, checked: validators.length, trusting, refusing: refusing.length, unreadable };
    if (refusing.length === 0) {
      this.options.logger.info(details, `GET /signatures: ${trusting} of the active campaigns' validators checked trust a key of this service`);
    } else {
      this.options.logger.warn(
        { ...details, examples: refusing.slice(0, 5).map(({ chainId, validator }) => `${chainId}:${validator}`) },
        `GET /signatures: ${refusing.length} of the active campaigns' validators checked trust none of this service's keys; their campaigns are refused (validator_does_not_trust_this_signer) until one is made a signer`,
      );
    }
    this.finished();
  }
}
