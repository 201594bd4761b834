import pg from 'pg';
import { isSubmittable } from './submittable.js';

/**
 * What the API's connections need when a pooler in transaction mode (PgBouncer `pool_mode =
 * transaction`) stands between them and PostgreSQL: each transaction may run on a different server
 * connection, so nothing may rely on state a connection keeps between transactions.
 *
 * - No startup parameters but application_name (PgBouncer refuses `statement_timeout` and
 *   `idle_in_transaction_session_timeout` at start-up with 08P01 "unsupported startup parameter").
 *   Instead, every transaction begins with
 *   `SELECT set_config('statement_timeout', ..., true), set_config('idle_in_transaction_session_timeout', ..., true)`,
 *   written in the same network write as the statement (one round trip, one implicit
 *   transaction: the pooler cannot put the two on different server connections), so the settings
 *   hold for exactly that transaction. PostgreSQL arms the statement timeout afresh for each Execute
 *   message, so the statement that follows runs under it: a query over it still ends in 57014 (504).
 * - No named prepared statements: a statement is prepared unnamed, for this transaction only. (The
 *   plans that matter are kept server-side instead, see docs/design.md "Connections and poolers".)
 *
 * A statement sent while a transaction is open (after BEGIN) gets no preamble: the transaction's own
 * settings hold, including any it raised itself (the claim volumes' load). Nor does any statement
 * once `timeouts.perTransaction` is false: the server's own defaults for the role or database are
 * already these timeouts (see adoptServerTimeouts), so each transaction starts under them anyway.
 */
export function transactionPooledClient(timeouts: TransactionTimeouts) {
  const preamble =
    `SELECT set_config('statement_timeout', '${Math.trunc(timeouts.statementTimeoutMs)}', true), ` +
    `set_config('idle_in_transaction_session_timeout', '${Math.trunc(timeouts.idleInTransactionTimeoutMs)}', true)`;

  return class TransactionPooledClient extends pg.Client {
    override query(config: unknown, values?: unknown, callback?: unknown): never {
      if (config === null || config === undefined || isSubmittable(config)) {
        return (super.query as (...args: unknown[]) => never)(config, values, callback);
      }
      const query = new TransactionScopedQuery(config, values, callback, timeouts.perTransaction ? preamble : undefined, () =>
        this.transactionStatus(),
      );
      const submit = (super.query as (query: unknown) => unknown).bind(this);
      if (query.callback) {
        submit(query);
        return undefined as never;
      }
      return new Promise((resolve, reject) => {
        query.callback = (error: Error | null, result: unknown) => (error ? reject(error) : resolve(result));
        submit(query);
      }) as never;
    }

    /** 'I' idle, 'T' in a transaction, 'E' in a failed one: as the server said in its last ReadyForQuery. */
    private transactionStatus(): string | null {
      return (this as unknown as { _txStatus?: string | null })._txStatus ?? null;
    }
  };
}

interface PgConnection {
  parse(message: { text: string; name?: string; types?: unknown }): void;
  bind(message: { portal?: string; statement?: string; values?: unknown[]; valueMapper?: unknown }): void;
  execute(message: { portal?: string; rows?: number }): void;
  sync(): void;
}

/** pg's Query with the preamble written first when it starts a transaction, and never a named statement. */
class TransactionScopedQuery extends (pg.Query as unknown as new (config: unknown, values?: unknown, callback?: unknown) => QueryInternals) {
  /** Where the preamble went, if it was sent: its DataRow and CommandComplete are not the caller's. */
  private preamble_: 'before' | 'after' | undefined;
  private commandsCompleted = 0;

  constructor(
    config: unknown,
    values: unknown,
    callback: unknown,
    /** Undefined when the server's defaults are the timeouts: nothing to send. */
    private readonly preamble: string | undefined,
    private readonly transactionStatus: () => string | null,
  ) {
    super(config, values, callback);
    this.name = undefined;
  }

  override requiresPreparation(): boolean {
    // The preamble and the statement travel together only in the extended protocol.
    return this.startsTransaction() || super.requiresPreparation();
  }

  override prepare(connection: PgConnection): void {
    if (!this.startsTransaction()) return super.prepare(connection);
    // BEGIN must come first (its isolation level can only be set before any query); otherwise the
    // preamble does, so that the statement runs under the timeout.
    if (BEGINS_TRANSACTION.test(this.text ?? '')) {
      // Sent by _getRows, between the statement's Execute and the Sync.
      this.preamble_ = 'after';
      super.prepare(connection);
    } else {
      this.sendPreamble(connection);
      this.preamble_ = 'before';
      super.prepare(connection);
    }
  }

  override _getRows(connection: PgConnection, rows: number | undefined): void {
    if (this.preamble_ !== 'after' || rows) return super._getRows(connection, rows);
    connection.execute({ portal: this.portal });
    this.sendPreamble(connection);
    connection.sync();
  }

  /** No Describe and no Sync: the preamble's answer is one DataRow and one CommandComplete, both swallowed. */
  private sendPreamble(connection: PgConnection): void {
    connection.parse({ text: this.preamble! });
    connection.bind({});
    connection.execute({});
  }

  override handleDataRow(message: unknown): void {
    if (this.isPreambleAnswer()) return;
    super.handleDataRow(message);
  }

  override handleCommandComplete(message: unknown, connection: unknown): void {
    const preamble = this.isPreambleAnswer();
    this.commandsCompleted++;
    if (!preamble) super.handleCommandComplete(message, connection);
  }

  /** Whether the answer arriving now is the preamble's: the first command's when it went first, the second's when after. */
  private isPreambleAnswer(): boolean {
    return (this.preamble_ === 'before' && this.commandsCompleted === 0) || (this.preamble_ === 'after' && this.commandsCompleted === 1);
  }

  private startsTransaction(): boolean {
    return this.preamble !== undefined && this.transactionStatus() !== 'T' && this.transactionStatus() !== 'E';
  }
}

/** What each transaction must run under, and whether the API has to set it (shared by a pool's connections). */
export interface TransactionTimeouts {
  statementTimeoutMs: number;
  idleInTransactionTimeoutMs: number;
  /** True until the server's own defaults are found to be these timeouts. */
  perTransaction: boolean;
}

/**
 * Whether the server's defaults for the API's role and database are already the API's timeouts
 * (`ALTER ROLE ... [IN DATABASE ...] SET statement_timeout = ...`, and the same for
 * idle_in_transaction_session_timeout): then every transaction of every server connection the
 * pooler hands out starts under them, and the preamble is left off (one statement less for
 * PostgreSQL and PgBouncer per transaction). `reset_val` is what a connection started with, from the
 * role, the database or the server's configuration, whatever the transaction running the check set
 * for itself; a value a session SET would give is not counted as a default. Checked when the API
 * starts; a role whose settings change later applies to new server connections only, so change
 * DB_STATEMENT_TIMEOUT_MS and DB_IDLE_IN_TRANSACTION_TIMEOUT_MS with it and restart.
 */
export async function adoptServerTimeouts(
  query: (text: string) => Promise<{ rows: { name: string; reset_val: string }[] }>,
  timeouts: TransactionTimeouts,
): Promise<void> {
  const { rows } = await query(
    "SELECT name, reset_val FROM pg_settings WHERE name IN ('statement_timeout', 'idle_in_transaction_session_timeout')",
  );
  const defaults = new Map(rows.map((row) => [row.name, Number(row.reset_val)]));
  timeouts.perTransaction = !(
    defaults.get('statement_timeout') === Math.trunc(timeouts.statementTimeoutMs) &&
    defaults.get('idle_in_transaction_session_timeout') === Math.trunc(timeouts.idleInTransactionTimeoutMs)
  );
}

const BEGINS_TRANSACTION = /^\s*(begin|start\s+transaction)\b/i;

/** The parts of pg's (untyped) Query this file overrides or sets. */
interface QueryInternals {
  name: string | undefined;
  text: string | undefined;
  portal: string;
  _getRows(connection: PgConnection, rows: number | undefined): void;
  callback: ((error: Error | null, result: unknown) => void) | undefined;
  requiresPreparation(): boolean;
  prepare(connection: PgConnection): void;
  handleDataRow(message: unknown): void;
  handleCommandComplete(message: unknown, connection: unknown): void;
}
