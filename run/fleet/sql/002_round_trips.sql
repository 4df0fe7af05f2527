-- 002_round_trips.sql — a claim, a result write and a reap as one statement
-- each.
--
-- On a busy host every statement waits for the database's backend to be
-- scheduled; a result write of six statements in a transaction cost six of
-- those waits (run/fleet/README.md, the load figure). These functions do
-- the same work in one round trip, under the caller's rights (row-level
-- security applies as to the statements they replace). One statement also
-- means no host can stall between statements of a transaction while it
-- holds locks others wait for (a fleetd stopped with SIGSTOP holds nothing).

-- Leases up to p_want queued partitions whose key host p_host holds, oldest
-- job first (FOR UPDATE SKIP LOCKED), logs each lease with the host's
-- lease count after the claim, and returns them.
CREATE FUNCTION fleet_claim(p_host text, p_want integer, p_slots integer, p_lease_ms integer)
RETURNS TABLE (job_id text, idx integer, lease_token bigint, witness_path text,
               witness_size bigint, witness_sha256 text, key_name text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    WITH c AS (
        SELECT p.job_id, p.idx, j.key_name
          FROM fleet_partitions p JOIN fleet_jobs j ON j.job_id = p.job_id
         WHERE p.state = 'queued' AND j.state = 'queued'
           AND EXISTS (SELECT 1 FROM fleet_host_keys k WHERE k.host_id = p_host
                       AND k.key_name = j.key_name
                       AND (j.key_sha256 IS NULL OR k.key_sha256 = j.key_sha256))
         ORDER BY j.created_at, p.job_id, p.idx
         LIMIT p_want
         FOR UPDATE OF p SKIP LOCKED)
    UPDATE fleet_partitions p SET state = 'leased', attempts = p.attempts + 1,
           lease_host = p_host, lease_token = nextval('fleet_lease_token'),
           lease_expires = now() + p_lease_ms * interval '1 millisecond'
      FROM c WHERE p.job_id = c.job_id AND p.idx = c.idx
    RETURNING p.job_id, p.idx, p.lease_token, p.witness_path, p.witness_size,
              p.witness_sha256, c.key_name;
    INSERT INTO fleet_lease_log (lease_token, job_id, idx, host_id, host_slots, host_leases)
    SELECT p.lease_token, p.job_id, p.idx, p_host, p_slots,
           (SELECT count(*) FROM fleet_partitions q WHERE q.state = 'leased' AND q.lease_host = p_host)
      FROM fleet_partitions p WHERE p.state = 'leased' AND p.lease_host = p_host
    ON CONFLICT (lease_token) DO NOTHING;
END $$;

-- Writes one outcome under lease p_token (the fence): p_outcome 'done'
-- (with proof and public), 'failed' (with the reason: the job fails) or
-- 'released' (back to the queue, or failed once max_attempts are spent).
-- Returns 'refused' when the lease is no longer p_host's, else 'done',
-- 'job_done', 'released' or 'job_failed'. The job row is locked first, so
-- the last partitions of a job written at once end it exactly once.
CREATE FUNCTION fleet_deliver(p_job text, p_idx integer, p_token bigint, p_host text,
                              p_outcome text, p_proof text, p_public text, p_error text)
RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    st text;
    err text;
BEGIN
    PERFORM 1 FROM fleet_jobs WHERE job_id = p_job FOR UPDATE;
    IF p_outcome = 'done' THEN
        UPDATE fleet_partitions SET state = 'done', proof = p_proof, public = p_public,
               done_by = p_host, done_at = now(), lease_host = NULL, lease_token = NULL,
               lease_expires = NULL
         WHERE job_id = p_job AND idx = p_idx AND state = 'leased' AND lease_token = p_token;
        IF NOT FOUND THEN
            UPDATE fleet_lease_log SET outcome = 'refused' WHERE lease_token = p_token;
            RETURN 'refused';
        END IF;
        UPDATE fleet_lease_log SET outcome = 'done' WHERE lease_token = p_token;
        UPDATE fleet_hosts SET proofs = proofs + 1 WHERE host_id = p_host;
        UPDATE fleet_jobs SET state = 'done', finished_at = now()
         WHERE job_id = p_job AND state = 'queued'
           AND NOT EXISTS (SELECT 1 FROM fleet_partitions WHERE job_id = p_job AND state <> 'done');
        IF FOUND THEN
            PERFORM pg_notify('slotprove_fleet_job', p_job);
            RETURN 'job_done';
        END IF;
        RETURN 'done';
    ELSIF p_outcome = 'failed' THEN
        UPDATE fleet_partitions SET state = 'failed', error = p_error, lease_host = NULL,
               lease_token = NULL, lease_expires = NULL
         WHERE job_id = p_job AND idx = p_idx AND state = 'leased' AND lease_token = p_token
        RETURNING state, error INTO st, err;
    ELSE
        UPDATE fleet_partitions p
           SET state = CASE WHEN p.attempts >= j.max_attempts THEN 'failed' ELSE 'queued' END,
               error = CASE WHEN p.attempts >= j.max_attempts
                            THEN format('%s attempts, the last: %s', p.attempts, p_error) END,
               lease_host = NULL, lease_token = NULL, lease_expires = NULL
          FROM fleet_jobs j
         WHERE j.job_id = p.job_id AND p.job_id = p_job AND p.idx = p_idx
           AND p.state = 'leased' AND p.lease_token = p_token
        RETURNING p.state, p.error INTO st, err;
    END IF;
    IF st IS NULL THEN
        UPDATE fleet_lease_log SET outcome = 'refused' WHERE lease_token = p_token;
        RETURN 'refused';
    END IF;
    UPDATE fleet_lease_log SET outcome = p_outcome WHERE lease_token = p_token;
    IF st = 'failed' THEN
        UPDATE fleet_jobs SET state = 'failed', error = format('partition %s: %s', p_idx, err),
               finished_at = now()
         WHERE job_id = p_job AND state = 'queued';
        UPDATE fleet_partitions SET state = 'cancelled', lease_host = NULL, lease_token = NULL,
               lease_expires = NULL
         WHERE job_id = p_job AND state IN ('queued', 'leased');
        PERFORM pg_notify('slotprove_fleet_job', p_job);
        RETURN 'job_failed';
    END IF;
    PERFORM pg_notify('slotprove_fleet_work', '');
    RETURN 'released';
END $$;

-- Under the reaper's advisory lock (skipped, returning 0, when another host
-- holds it): expired leases back to the queue, or the partition and its job
-- failed once the job's max_attempts are spent. Jobs are locked first, in
-- job order, as fleet_deliver locks its job before its partition. Returns
-- the number of leases taken back.
CREATE FUNCTION fleet_reap() RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    n integer;
    nfailed integer;
    ended record;
BEGIN
    IF NOT pg_try_advisory_xact_lock(7598543218) THEN
        RETURN 0;
    END IF;
    PERFORM 1 FROM fleet_jobs WHERE job_id IN
        (SELECT job_id FROM fleet_partitions WHERE state = 'leased' AND lease_expires < now())
     ORDER BY job_id FOR UPDATE;
    UPDATE fleet_lease_log l SET outcome = 'expired' FROM fleet_partitions p
     WHERE p.lease_token = l.lease_token AND p.state = 'leased' AND p.lease_expires < now();
    WITH r AS (
        UPDATE fleet_partitions p
           SET state = CASE WHEN p.attempts >= j.max_attempts THEN 'failed' ELSE 'queued' END,
               error = CASE WHEN p.attempts >= j.max_attempts
                            THEN format('its lease expired %s times (last on host %s): the hosts '
                                        'died or stalled while proving it', p.attempts, p.lease_host) END,
               lease_host = NULL, lease_token = NULL, lease_expires = NULL
          FROM fleet_jobs j
         WHERE j.job_id = p.job_id AND p.state = 'leased' AND p.lease_expires < now()
        RETURNING p.state)
    SELECT count(*), count(*) FILTER (WHERE state = 'failed') INTO n, nfailed FROM r;
    IF nfailed > 0 THEN
        FOR ended IN
            UPDATE fleet_jobs fj SET state = 'failed', finished_at = now(),
                   error = (SELECT format('partition %s: %s', p.idx, p.error) FROM fleet_partitions p
                             WHERE p.job_id = fj.job_id AND p.state = 'failed' ORDER BY p.idx LIMIT 1)
             WHERE fj.state = 'queued'
               AND EXISTS (SELECT 1 FROM fleet_partitions p WHERE p.job_id = fj.job_id AND p.state = 'failed')
            RETURNING fj.job_id
        LOOP
            UPDATE fleet_partitions SET state = 'cancelled', lease_host = NULL, lease_token = NULL,
                   lease_expires = NULL
             WHERE job_id = ended.job_id AND state IN ('queued', 'leased');
            PERFORM pg_notify('slotprove_fleet_job', ended.job_id);
        END LOOP;
    END IF;
    IF n > nfailed THEN
        PERFORM pg_notify('slotprove_fleet_work', '');
    END IF;
    RETURN n;
END $$;

REVOKE ALL ON FUNCTION fleet_reap() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION fleet_reap() TO slotprove_host;

REVOKE ALL ON FUNCTION fleet_claim(text, integer, integer, integer),
    fleet_deliver(text, integer, bigint, text, text, text, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION fleet_claim(text, integer, integer, integer),
    fleet_deliver(text, integer, bigint, text, text, text, text, text) TO slotprove_host;
