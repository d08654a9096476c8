-- Background work the replicas share (issue 44): one row per job of a kind and key (the index
-- sync of a sub account: kind `transaction-index`, key its id), asked for by any replica and run
-- by one, on both engines (platform/jobs/job-table.ts). A request that finds the key's job
-- pending or running joins it; one that finds it ended asks for it again. A worker takes a due
-- row with `FOR UPDATE SKIP LOCKED` and holds it for a lease by the database's clock, which its
-- progress writes extend: a replica killed mid-job leaves the row to be taken again once the
-- lease lapses.

-- Up Migration

CREATE TABLE background_job (
  kind text COLLATE "C" NOT NULL CHECK (kind <> ''),
  key text COLLATE "C" NOT NULL CHECK (key <> ''),
  -- What the requester gave (the sync's request id and how fresh a day must be).
  input jsonb NOT NULL,
  state text NOT NULL DEFAULT 'pending'
    CHECK (state IN ('pending', 'running', 'succeeded', 'failed')),
  -- Tries taken, this request's: each take counts one, so a lapsed try cannot settle a later one.
  attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  progress jsonb,
  requested_at timestamptz NOT NULL,
  -- Pending: when it is due; running: when its lease lapses.
  next_attempt_at timestamptz NOT NULL,
  finished_at timestamptz,
  last_error text,
  PRIMARY KEY (kind, key)
);
CREATE INDEX background_job_due ON background_job (kind, next_attempt_at)
  WHERE state IN ('pending', 'running');

GRANT SELECT, INSERT, UPDATE, DELETE ON background_job TO card_console_index_writer;

-- Down Migration

DROP TABLE background_job;
