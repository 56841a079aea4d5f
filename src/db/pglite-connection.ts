import { EventEmitter } from 'node:events';
import type { PGlite } from '@electric-sql/pglite';
import { parse, serialize } from 'pg-protocol';
import type { BackendMessage } from 'pg-protocol/dist/messages.js';

/**
 * A node-postgres `Connection` that talks to an in-process PGlite instead of
 * a socket, so the embedded database runs through the same pg Pool code as
 * PostgreSQL, with named prepared statements (parsed and planned once).
 *
 * Why not PGlite's own `query()`: it sends Parse, Describe, Bind, Describe,
 * Execute and Sync as six calls into the WebAssembly module and re-plans the
 * statement every time. node-postgres sends Bind/Describe/Execute/Sync for a
 * statement it has prepared, and this connection hands those messages to
 * PGlite together, as one call, when the client syncs: about a quarter of
 * the time per query. (`@electric-sql/pglite/node-postgres` does the same
 * without the batching, one call per message.)
 *
 * PGlite is a single session, so every connection made on one PGlite shares
 * its record of prepared statements: a connection that replaces a broken one
 * must not prepare a name the session already holds.
 */
export class PgliteConnection extends EventEmitter {
  /** What node-postgres reads and writes on its connection. */
  _connecting = false;
  readonly stream = { destroy: () => this.end() };
  readonly parsedStatements: Record<string, string>;
  readonly submittedNamedStatements: Record<string, string> = {};

  private pending: Uint8Array[] = [];
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly lite: PGlite,
    shared: { parsedStatements: Record<string, string>; connections: number },
  ) {
    super();
    this.parsedStatements = shared.parsedStatements;
    this.replacing = shared.connections++ > 0;
    void parse(this.answers as unknown as NodeJS.ReadableStream, (m: BackendMessage) => {
      this.emit('message', m);
      this.emit(m.name === 'error' ? 'errorMessage' : m.name, m);
    });
  }

  private readonly replacing: boolean;

  connect(): void {
    this._connecting = true;
    // A connection after the first may replace one dropped inside a transaction, on the
    // same session: whatever that one left open is ended before this one is used.
    const ready = this.replacing ? this.lite.waitReady.then(() => this.lite.exec('ROLLBACK')) : this.lite.waitReady;
    ready.then(
      // No startup or authentication: the session is ready as soon as PGlite is.
      () => this.emit('readyForQuery', { name: 'readyForQuery', length: 5, status: 'I' }),
      (err) => this.emit('error', err),
    );
  }

  query(text: string): void {
    this.pending.push(serialize.query(text));
    this.send();
  }
  parse(query: Parameters<typeof serialize.parse>[0]): void {
    this.pending.push(serialize.parse(query));
  }
  bind(config: Parameters<typeof serialize.bind>[0]): void {
    this.pending.push(serialize.bind(config));
  }
  execute(config: Parameters<typeof serialize.execute>[0]): void {
    this.pending.push(serialize.execute(config));
  }
  describe(msg: Parameters<typeof serialize.describe>[0]): void {
    this.pending.push(serialize.describe(msg));
  }
  close(msg: Parameters<typeof serialize.close>[0]): void {
    this.pending.push(serialize.close(msg));
  }
  flush(): void {
    this.pending.push(serialize.flush());
    this.send();
  }
  sync(): void {
    this.pending.push(serialize.sync());
    this.send();
  }
  end(): void {
    this.pending = [];
    this.chain.then(() => {
      this.answers.emit('end');
      this.emit('end');
    });
  }

  // Sockets only: nothing to do in-process.
  requestSsl(): void {}
  startup(): void {}
  cancel(): void {}
  password(): void {}
  ref(): void {}
  unref(): void {}
  sendCopyFromChunk(): void {
    this.unsupported('COPY FROM STDIN');
  }
  endCopyFrom(): void {
    this.unsupported('COPY FROM STDIN');
  }
  sendCopyFail(): void {
    this.unsupported('COPY FROM STDIN');
  }
  sendSASLInitialResponseMessage(): void {
    this.unsupported('authentication');
  }
  sendSCRAMClientFinalMessage(): void {
    this.unsupported('authentication');
  }

  /**
   * PGlite's answers, as raw protocol bytes, go through node-postgres's own
   * parser (the one a socket's bytes go through). PGlite's own parser, behind
   * `execProtocolStream` and `execProtocolRaw` alike, was a third of the CPU
   * of a page of 50 rows.
   */
  private readonly answers = new EventEmitter();

  /** Hands every message written since the last send to PGlite in one call, in order, and replays its answers. */
  private send(): void {
    const messages = this.pending;
    this.pending = [];
    const payload = messages.length === 1 ? messages[0] : Buffer.concat(messages);
    // PGlite hands its output over in chunks of its own memory, which it reuses: each is copied.
    // They are parsed once the call is over (and synced to disk), as a socket's would arrive.
    const chunks: Buffer[] = [];
    this.chain = this.chain
      .then(() => this.lite.execProtocolRawStream(payload, { onRawData: (chunk) => void chunks.push(Buffer.from(chunk)) }))
      .then(() => {
        if (chunks.length) this.answers.emit('data', chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
      })
      .catch((err) => {
        this.emit('error', err);
      });
  }

  private unsupported(what: string): never {
    throw new Error(`${what} is not supported on the embedded database`);
  }
}
