-- 001_init.sql — the fleet's job state (run/fleet/README.md).
--
-- Applied once by `slotprove fleet init`, in one transaction, under an
-- advisory lock; fleet_meta.schema_version records the last file applied.
-- All times are the database's clock (now()), never a host's.
--
-- Roles: slotprove_host (fleetd) and slotprove_client (submit/wait/cancel/
-- status) are group roles without login; an administrator grants them to
-- login roles. Row-level security lets a client see and cancel only the
-- jobs it submitted (owner = current_user); hosts see every row.

DO $$ BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'slotprove_host') THEN
        CREATE ROLE slotprove_host NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'slotprove_client') THEN
        CREATE ROLE slotprove_client NOLOGIN;
    END IF;
END $$;

-- One row per fleetd: its slots (how many partitions it may lease at once),
-- when it last heartbeat, and why it takes no work (serve down, ...).
CREATE TABLE fleet_hosts (
    host_id     text PRIMARY KEY CHECK (length(host_id) BETWEEN 1 AND 255),
    db_role     name NOT NULL DEFAULT current_user,
    slots       integer NOT NULL DEFAULT 0 CHECK (slots >= 0),
    started_at  timestamptz NOT NULL DEFAULT now(),
    last_seen   timestamptz NOT NULL DEFAULT now(),
    note        text NOT NULL DEFAULT '',
    proofs      bigint NOT NULL DEFAULT 0
);

-- The keys each host's serve has preloaded, by name and SHA-256 (hex).
CREATE TABLE fleet_host_keys (
    host_id     text NOT NULL REFERENCES fleet_hosts ON DELETE CASCADE,
    key_name    text NOT NULL,
    key_sha256  text NOT NULL CHECK (key_sha256 ~ '^[0-9a-f]{64}$'),
    PRIMARY KEY (host_id, key_name)
);

CREATE TABLE fleet_jobs (
    job_id       text PRIMARY KEY CHECK (job_id ~ '^[0-9a-f]{32}$'),
    owner        name NOT NULL DEFAULT current_user,
    key_name     text NOT NULL,
    key_sha256   text CHECK (key_sha256 ~ '^[0-9a-f]{64}$'),  -- NULL: any host's key of that name
    nparts       integer NOT NULL CHECK (nparts BETWEEN 1 AND 64),
    max_attempts integer NOT NULL DEFAULT 3 CHECK (max_attempts BETWEEN 1 AND 100),
    state        text NOT NULL DEFAULT 'queued'
                 CHECK (state IN ('queued', 'done', 'failed', 'cancelled')),
    error        text,
    created_at   timestamptz NOT NULL DEFAULT now(),
    finished_at  timestamptz
);

-- One row per witness. A lease is (lease_host, lease_token, lease_expires):
-- the token comes from fleet_lease_token and changes at every claim, so a
-- result is written only by the holder of the current lease (the fence).
CREATE SEQUENCE fleet_lease_token;
CREATE TABLE fleet_partitions (
    job_id         text NOT NULL REFERENCES fleet_jobs ON DELETE CASCADE,
    idx            integer NOT NULL CHECK (idx >= 0),
    owner          name NOT NULL DEFAULT current_user,
    witness_path   text NOT NULL,
    witness_size   bigint NOT NULL CHECK (witness_size >= 0),
    witness_sha256 text NOT NULL CHECK (witness_sha256 ~ '^[0-9a-f]{64}$'),
    state          text NOT NULL DEFAULT 'queued'
                   CHECK (state IN ('queued', 'leased', 'done', 'failed', 'cancelled')),
    attempts       integer NOT NULL DEFAULT 0,
    lease_host     text,
    lease_token    bigint,
    lease_expires  timestamptz,
    done_by        text,
    done_at        timestamptz,
    proof          text,   -- snarkjs proof.json, key order kept (not jsonb)
    public         text,   -- snarkjs public.json array
    error          text,
    PRIMARY KEY (job_id, idx),
    CHECK ((state = 'leased') = (lease_token IS NOT NULL))
);
CREATE INDEX fleet_partitions_queued ON fleet_partitions (job_id, idx) WHERE state = 'queued';
CREATE INDEX fleet_partitions_leased ON fleet_partitions (lease_host) WHERE state = 'leased';
CREATE INDEX fleet_partitions_done ON fleet_partitions (done_at) WHERE state = 'done';

-- Every lease ever given and whether its result was written: for the
-- invariants (done exactly once, leases never above slots) and the figures.
CREATE TABLE fleet_lease_log (
    lease_token  bigint PRIMARY KEY,
    job_id       text NOT NULL,
    idx          integer NOT NULL,
    host_id      text NOT NULL,
    host_slots   integer NOT NULL,
    host_leases  integer NOT NULL,  -- leases this host held right after the claim
    leased_at    timestamptz NOT NULL DEFAULT now(),
    outcome      text               -- done, failed, refused, released, expired
);

-- ---- security ---------------------------------------------------------------
ALTER TABLE fleet_jobs ENABLE ROW LEVEL SECURITY;
ALTER TABLE fleet_partitions ENABLE ROW LEVEL SECURITY;
CREATE POLICY fleet_jobs_host ON fleet_jobs TO slotprove_host USING (true) WITH CHECK (true);
CREATE POLICY fleet_jobs_own ON fleet_jobs TO slotprove_client
    USING (owner = current_user) WITH CHECK (owner = current_user);
CREATE POLICY fleet_partitions_host ON fleet_partitions TO slotprove_host USING (true) WITH CHECK (true);
CREATE POLICY fleet_partitions_own ON fleet_partitions TO slotprove_client
    USING (owner = current_user) WITH CHECK (owner = current_user);

GRANT SELECT, INSERT, UPDATE, DELETE ON fleet_hosts, fleet_host_keys TO slotprove_host;
GRANT SELECT, UPDATE ON fleet_jobs, fleet_partitions TO slotprove_host;
GRANT SELECT, INSERT ON fleet_lease_log TO slotprove_host;
GRANT UPDATE (outcome) ON fleet_lease_log TO slotprove_host;
GRANT USAGE ON SEQUENCE fleet_lease_token TO slotprove_host;
GRANT SELECT ON fleet_hosts, fleet_host_keys TO slotprove_client;
GRANT SELECT, INSERT ON fleet_jobs, fleet_partitions TO slotprove_client;
GRANT UPDATE (state, error, finished_at) ON fleet_jobs TO slotprove_client;
GRANT UPDATE (state, error, lease_host, lease_token, lease_expires) ON fleet_partitions
    TO slotprove_client;

-- What every client may know of the whole queue without seeing others' jobs:
-- counts per key and per host (status --db).
CREATE FUNCTION fleet_queue_overview()
RETURNS TABLE (key_name text, queued bigint, leased bigint, holders bigint)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
    SELECT j.key_name,
           count(*) FILTER (WHERE p.state = 'queued'),
           count(*) FILTER (WHERE p.state = 'leased'),
           (SELECT count(*) FROM fleet_host_keys k JOIN fleet_hosts h USING (host_id)
             WHERE k.key_name = j.key_name AND (j.key_sha256 IS NULL OR k.key_sha256 = j.key_sha256)
               AND h.slots > 0)
      FROM fleet_partitions p JOIN fleet_jobs j USING (job_id)
     WHERE p.state IN ('queued', 'leased')
     GROUP BY j.key_name, j.key_sha256
$$;
CREATE FUNCTION fleet_host_overview()
RETURNS TABLE (host_id text, leases bigint, done_1m bigint, done_total bigint)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
    SELECT h.host_id,
           (SELECT count(*) FROM fleet_partitions p WHERE p.state = 'leased' AND p.lease_host = h.host_id),
           (SELECT count(*) FROM fleet_partitions p WHERE p.state = 'done' AND p.done_by = h.host_id
               AND p.done_at > now() - interval '1 minute'),
           h.proofs
      FROM fleet_hosts h
$$;
REVOKE ALL ON FUNCTION fleet_queue_overview(), fleet_host_overview() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION fleet_queue_overview(), fleet_host_overview()
    TO slotprove_client, slotprove_host;

GRANT SELECT ON fleet_meta TO slotprove_host, slotprove_client;
