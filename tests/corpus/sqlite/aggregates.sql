-- Aggregates, GROUP BY/HAVING, window functions, recursive CTEs.
CREATE TABLE sales (id INTEGER PRIMARY KEY, region TEXT, rep TEXT, month INTEGER, amount REAL);
WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < 240)
INSERT INTO sales (region, rep, month, amount)
SELECT CASE n % 4 WHEN 0 THEN 'north' WHEN 1 THEN 'south' WHEN 2 THEN 'east' ELSE 'west' END,
       'rep' || (n % 7),
       (n % 12) + 1,
       round(((n * 7919) % 1000) / 10.0 + 20, 2)
FROM seq;
SELECT count(*), sum(amount), round(avg(amount), 4), min(amount), max(amount), total(amount) FROM sales;
SELECT region, count(*), round(sum(amount), 2), round(avg(amount), 2) FROM sales GROUP BY region ORDER BY region;
SELECT rep, count(DISTINCT region), max(amount) FROM sales GROUP BY rep HAVING count(*) > 34 ORDER BY rep;
SELECT month, group_concat(DISTINCT region) FROM (SELECT * FROM sales ORDER BY region) GROUP BY month HAVING month <= 3 ORDER BY month;
SELECT count(*), count(x), sum(x), avg(x), total(x) FROM (SELECT NULL AS x UNION ALL SELECT NULL);

-- Window functions.
SELECT region, month, round(sum(amount), 2),
       round(sum(sum(amount)) OVER (PARTITION BY region ORDER BY month), 2) AS running,
       rank() OVER (PARTITION BY month ORDER BY sum(amount) DESC) AS rnk
FROM sales WHERE month IN (1, 2) GROUP BY region, month ORDER BY region, month;
SELECT id, amount, row_number() OVER w, dense_rank() OVER w, round(percent_rank() OVER w, 4),
       ntile(3) OVER w, lag(amount) OVER w, lead(amount, 2, -1) OVER w,
       first_value(amount) OVER w, last_value(amount) OVER w
FROM sales WHERE rep = 'rep3' AND region = 'west'
WINDOW w AS (ORDER BY amount, id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) ORDER BY amount, id;
SELECT month, round(avg(amount) OVER (ORDER BY month RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING), 3)
FROM (SELECT month, sum(amount) AS amount FROM sales GROUP BY month) ORDER BY month;

-- Recursive CTEs: factorials, Fibonacci, a tree walk, Collatz.
WITH RECURSIVE f(n, v) AS (SELECT 1, 1 UNION ALL SELECT n + 1, v * (n + 1) FROM f WHERE n < 20)
SELECT n, v FROM f WHERE n % 5 = 0;
WITH RECURSIVE fib(a, b, i) AS (SELECT 0, 1, 0 UNION ALL SELECT b, a + b, i + 1 FROM fib WHERE i < 90)
SELECT i, a FROM fib WHERE i IN (10, 50, 90);
CREATE TABLE tree (id INTEGER PRIMARY KEY, parent INTEGER, label TEXT);
INSERT INTO tree VALUES (1, NULL, 'root'), (2, 1, 'bin'), (3, 1, 'lib'), (4, 3, 'x86_64'),
  (5, 4, 'libc.so'), (6, 2, 'ld'), (7, 3, 'gcc'), (8, 7, 'crtbegin.o');
WITH RECURSIVE walk(id, path, depth) AS (
  SELECT id, label, 0 FROM tree WHERE parent IS NULL
  UNION ALL
  SELECT t.id, w.path || '/' || t.label, w.depth + 1 FROM tree t JOIN walk w ON t.parent = w.id
)
SELECT depth, path FROM walk ORDER BY path;
WITH RECURSIVE c(x, steps) AS (SELECT 27, 0 UNION ALL SELECT CASE WHEN x % 2 = 0 THEN x / 2 ELSE 3 * x + 1 END, steps + 1 FROM c WHERE x > 1)
SELECT max(steps), max(x) FROM c;

-- Statistics-ish expressions.
SELECT region,
       round(sqrt(avg(amount * amount) - avg(amount) * avg(amount)), 4) AS stddev,
       round(exp(avg(ln(amount))), 4) AS geomean,
       round(pow(2, 10)), round(pi(), 6), floor(-2.5), ceil(-2.5), log10(1000), log2(64)
FROM sales GROUP BY region ORDER BY region;
