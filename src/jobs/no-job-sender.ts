import type { JobSendOptions, JobSender } from './job-catalog.js';

/**
 * The job sender of a process that sends no jobs: the OpenAPI export builds
 * the services only to read the routes they serve. A send there is a bug,
 * so it fails loudly instead of dropping the job.
 */
export class NoJobSender implements JobSender {
  async send(name: string, _payload: unknown, _options?: JobSendOptions): Promise<string | null> {
    throw new Error(`This process sends no jobs (tried to send ${name}).`);
  }
}
