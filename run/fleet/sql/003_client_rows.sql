-- 003_client_rows.sql — a client writes only its own rows, and only what a
-- submit or a cancel sets (run/fleet/README.md, "What a client may write").
--
-- PostgreSQL checks a foreign key without row-level security. Under 001 a
-- client that knew another client's job id could INSERT a partition into
-- that job (the row was its own, owner = current_user, so the policy
-- fleet_partitions_own let it in; the key check found the job) at any index,
-- and fail the job with a witness no host can read, or keep it from ever
-- finishing. A client could also write any column on insert (created_at
-- orders fleet_claim: a job dated back jumps the queue of every user; a
-- partition inserted as done or leased by a host counts in that host's
-- figures) and, on its own partitions, forge a lease of any host
-- (state 'leased', lease_host, lease_expires 'infinity': never reaped).
--
-- Restrictive policies are ANDed with 001's permissive ones, so owner =
-- current_user still holds; the hosts' policies are untouched.

-- Inserts name only the columns a submit sets; owner, state, attempts,
-- leases, results and times take their defaults.
REVOKE INSERT ON fleet_jobs, fleet_partitions FROM slotprove_client;
GRANT INSERT (job_id, key_name, key_sha256, nparts, max_attempts) ON fleet_jobs
    TO slotprove_client;
GRANT INSERT (job_id, idx, witness_path, witness_size, witness_sha256) ON fleet_partitions
    TO slotprove_client;

-- A partition goes into a queued job of the inserting role, below the job's
-- nparts (idx >= 0 is 001's CHECK; a second row at one index is refused by
-- the primary key). The subquery reads fleet_jobs under the client's own
-- row-level security, so another role's job is not found, whatever its id.
CREATE POLICY fleet_partitions_client_insert ON fleet_partitions AS RESTRICTIVE
    FOR INSERT TO slotprove_client
    WITH CHECK (EXISTS (SELECT 1 FROM fleet_jobs j
                         WHERE j.job_id = fleet_partitions.job_id
                           AND j.owner = current_user AND j.state = 'queued'
                           AND fleet_partitions.idx < j.nparts));

-- A client's only write to a partition is its cancel (fleet_wait.c): the row
-- leaves cancelled, holding no lease.
CREATE POLICY fleet_partitions_client_update ON fleet_partitions AS RESTRICTIVE
    FOR UPDATE TO slotprove_client
    USING (true)
    WITH CHECK (state = 'cancelled' AND lease_host IS NULL AND lease_token IS NULL
                AND lease_expires IS NULL);

-- Rows the old rules let in, in a database made before this file: a
-- partition of another role's job or past its job's nparts, and a lease no
-- claim gave (fleet_claim logs every lease it gives in fleet_lease_log, in
-- the same statement). The first are removed; a queued job whose remaining
-- partitions are all done is then done (its waiters are woken). A job such
-- a partition already failed stays failed: its owner submits it again. The
-- forged leases go back to the queue.
DO $$
DECLARE
    touched text[];
    j text;
BEGIN
    WITH gone AS (
        DELETE FROM fleet_partitions p USING fleet_jobs fj
         WHERE p.job_id = fj.job_id AND (p.owner <> fj.owner OR p.idx >= fj.nparts)
        RETURNING p.job_id)
    SELECT array_agg(DISTINCT job_id) INTO touched FROM gone;
    IF touched IS NOT NULL THEN
        FOR j IN
            UPDATE fleet_jobs fj SET state = 'done', finished_at = now()
             WHERE fj.job_id = ANY (touched) AND fj.state = 'queued'
               AND NOT EXISTS (SELECT 1 FROM fleet_partitions p
                                WHERE p.job_id = fj.job_id AND p.state <> 'done')
            RETURNING fj.job_id
        LOOP
            PERFORM pg_notify('slotprove_fleet_job', j);
        END LOOP;
    END IF;
    UPDATE fleet_partitions p SET state = 'queued', lease_host = NULL, lease_token = NULL,
           lease_expires = NULL
     WHERE p.state = 'leased'
       AND NOT EXISTS (SELECT 1 FROM fleet_lease_log l
                        WHERE l.lease_token = p.lease_token AND l.job_id = p.job_id
                          AND l.idx = p.idx AND l.host_id = p.lease_host);
END $$;
