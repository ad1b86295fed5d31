-- The sqlite3 workload of 'make eval-real' (tests/real/eval-real.py), on a
-- database file: 3 million rows inserted in one transaction, two indexes
-- built by the sorter over keys in no order (CREATE INDEX sorts the whole
-- table), a GROUP BY with ORDER BY, a count(DISTINCT) and an ordered scan.
-- A 256 MiB page cache lets the sorter keep all its records in memory (its
-- in-memory limit follows cache_size): CREATE INDEX then merge-sorts a
-- linked list of 3 million records over some 170 MiB, the pointer chasing
-- of vdbeSorterMerge(); with the default 2 MiB cache it spills to
-- temporary files and stays in the caches.
PRAGMA journal_mode=OFF;
PRAGMA synchronous=OFF;
PRAGMA cache_size=-262144;
CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, v TEXT);
BEGIN;
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < 3000000)
INSERT INTO t(k, v) SELECT (i * 2654435761) % 4294967291, printf('v%08d', (i * 40503) % 1000003) FROM c;
COMMIT;
CREATE INDEX t_k ON t(k);
CREATE INDEX t_v ON t(v);
SELECT k % 100, count(*), sum(length(v)) FROM t GROUP BY k % 100 ORDER BY 2 DESC LIMIT 5;
SELECT count(DISTINCT v) FROM t;
SELECT sum(id) FROM (SELECT id FROM t ORDER BY v LIMIT 100000);
