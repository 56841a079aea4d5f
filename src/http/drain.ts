import type { FastifyInstance } from 'fastify';

/**
 * The HTTP side of a graceful shutdown. Once draining, /readyz answers 503 so
 * a balancer that polls it stops routing here, and every response carries
 * `Connection: close`: a keep-alive connection ends with the answer it carries
 * instead of lingering idle, where a balancer could send one more request on
 * it just as the process closes it.
 */
export interface Drain {
  readonly draining: boolean;
  begin(): void;
}

declare module 'fastify' {
  interface FastifyInstance {
    drain: Drain;
  }
}

export function installDrain(app: FastifyInstance): void {
  let draining = false;
  app.decorate('drain', {
    get draining() {
      return draining;
    },
    begin() {
      draining = true;
    },
  } satisfies Drain);
  // app.close() alone (tests, embedders) drains too.
  app.addHook('preClose', async () => app.drain.begin());
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (draining) reply.header('connection', 'close');
    done(null, payload);
  });
}
