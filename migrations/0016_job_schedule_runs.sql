-- The periods each schedule has queued its job for. A worker claims
-- (schedule, period) with INSERT … ON CONFLICT DO NOTHING in the transaction
-- that sends the job, so exactly one process queues each period, however
-- many run and whichever dies half-way (see src/jobs/scheduler.ts).
CREATE TABLE job_schedule_runs (
  schedule text NOT NULL,
  period_start timestamptz NOT NULL,
  claimed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (schedule, period_start)
);
