import type { JobPayloads, JobSendOptions, JobSender } from './job-catalog.js';

/**
 * The job sender of a process that sends no jobs: the OpenAPI export (it
 * builds the app to read its document) and the operator CLI's commands,
 * which queue nothing. The services take a sender as a required argument, so
 * a process without a queue says so by passing this one. A send is a
 * programming error here, thrown at once: dropping the job would lose the
 * work it stands for (a mail, a purge) without a word.
 */
export class NoJobQueue implements JobSender {
  constructor(private readonly process: string) {}

  send<N extends keyof JobPayloads & string>(name: N, _payload: JobPayloads[N], _options?: JobSendOptions): Promise<string | null> {
    return Promise.reject(new Error(`${this.process} runs without the job queue: cannot send ${name}`));
  }
}
