-- The sqlite3 workload of tests/bench/real-sqlite.sh: 2.5 million rows
-- inserted in one transaction, an index, a GROUP BY with ORDER BY and a
-- count(DISTINCT): 3-4 s of CPU for sqlite3 -g -O1 on :memory:.
PRAGMA journal_mode=OFF;
PRAGMA synchronous=OFF;
CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, v TEXT);
BEGIN;
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < 2500000)
INSERT INTO t(k, v) SELECT (i * 7919) % 100003, printf('v%d', i % 5000) FROM c;
COMMIT;
CREATE INDEX t_k ON t(k);
SELECT k % 100, count(*), sum(length(v)) FROM t GROUP BY k % 100 ORDER BY 2 DESC LIMIT 5;
SELECT count(DISTINCT v) FROM t;
