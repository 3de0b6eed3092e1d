-- Run-time workload for bench/lto.sh: inserts, an index, aggregates, a join and sorting
-- over a generated table (deterministic; prints a few result rows).
CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, v TEXT, x REAL);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 200000)
INSERT INTO t(k, v, x) SELECT (i * 7919) % 1000, printf('row-%06d', (i * 31) % 100000), i * 0.5 FROM c;
CREATE INDEX t_k ON t(k);
SELECT count(*), sum(k), round(avg(x), 2) FROM t;
SELECT k, count(*), max(v) FROM t GROUP BY k ORDER BY count(*) DESC, k LIMIT 3;
CREATE TABLE u AS SELECT k, sum(x) AS s FROM t WHERE k % 7 = 0 GROUP BY k;
SELECT count(*), round(sum(u.s), 1) FROM t JOIN u ON t.k = u.k;
SELECT v FROM t ORDER BY v DESC, id LIMIT 2;
SELECT count(DISTINCT substr(v, 5, 3)), sum(length(v)) FROM t WHERE v LIKE 'row-0%';
UPDATE t SET x = x * 2 WHERE k < 500;
DELETE FROM t WHERE k > 900;
SELECT count(*), round(sum(x), 1) FROM t;
