-- Built-in scalar functions, JSON, dates with fixed inputs, FTS5, blobs.
SELECT length('héllo'), length(CAST('héllo' AS BLOB)), upper('mixed Case'), lower('MIXED'), trim('  x  '), ltrim('xxy', 'x'), rtrim('yxx', 'x');
SELECT substr('linker', 2, 3), substr('linker', -3), replace('a-b-c', '-', '+'), instr('haystack', 'st'), hex('AZ'), unhex('415A'), quote('it''s'), quote(x'00ff');
SELECT printf('%5d|%-5s|%.3f|%x|%q|%%', 42, 'ab', 2.0/3, 255, 'o''k'), format('%08.2f', 3.14159);
SELECT abs(-7), round(2.5), round(-2.5), round(1.23456, 3), max(3, 7, 5), min('b', 'a', 'c'), sign(-3), 7 / 2, 7 % 3, 7 / 2.0;
SELECT nullif(1, 1), nullif(1, 2), ifnull(NULL, 'dflt'), iif(1 > 2, 'yes', 'no'), coalesce(NULL, NULL, 3);
SELECT 'abc' < 'abd', 'a' = 'A', 'a' = 'A' COLLATE NOCASE, 10 < '9', typeof(10 + '5'), 10 + '5', '3' + '4';
SELECT 9223372036854775807 + 1, -9223372036854775808 - 1, 1e308 * 10, 5 / 0, 0.1 + 0.2, 1 << 62, ~5, 6 & 3, 6 | 3;
SELECT zeroblob(4), length(zeroblob(1000)), typeof(randomblob(4)), length(randomblob(16));
SELECT char(72, 105), unicode('é'), 'x' || NULL, concat('a', NULL, 'b'), concat_ws('-', 'a', 'b', NULL, 'c');
SELECT glob('*.c', 'main.c'), 'Main.C' LIKE 'main.c', 'ab%' LIKE 'ab\%' ESCAPE '\', like('a_c', 'abc');

-- Dates from fixed inputs (no 'now').
SELECT date('2024-02-28', '+1 day'), date('2023-02-28', '+1 day'), datetime(0, 'unixepoch'), julianday('2000-01-01 12:00:00');
SELECT strftime('%Y-%m-%d %H:%M:%S %j %w', '2024-12-31 23:59:59'), date('2024-01-31', '+1 month'), time('12:34:56', '+1 hour');
SELECT unixepoch('2038-01-19 03:14:08'), date('2024-06-15', 'start of month', '+1 month', '-1 day'), timediff('2024-03-01', '2024-02-01');

-- JSON.
SELECT json('{"b": 2, "a": [1, 2.5, "x", null, true]}');
SELECT json_extract('{"a": {"b": [10, 20, 30]}}', '$.a.b[1]'), '{"k": "v"}' -> '$.k', '{"k": "v"}' ->> '$.k';
SELECT json_array(1, 'two', NULL, json('{"three":3}')), json_object('x', 1, 'y', json_array()), json_valid('{bad'), json_type('[1]');
SELECT key, value, type FROM json_each('{"one": 1, "two": [2], "three": {"x": 3}}') ORDER BY key;
SELECT fullkey, atom FROM json_tree('[1, [2, [3, 4]], {"k": 5}]') WHERE atom IS NOT NULL ORDER BY id;
SELECT json_group_array(n), json_group_object('k' || n, n * n) FROM (SELECT 1 AS n UNION SELECT 2 UNION SELECT 3);
SELECT json_set('{"a": 1}', '$.b', 2, '$.a', 10), json_remove('[1, 2, 3]', '$[1]'), json_patch('{"a": 1, "b": 2}', '{"b": null, "c": 3}');

-- FTS5 full-text search.
CREATE VIRTUAL TABLE docs USING fts5(title, body);
INSERT INTO docs VALUES
  ('Linking', 'The linker resolves symbols and applies relocations to sections.'),
  ('Loading', 'The dynamic loader maps shared objects and resolves symbols lazily.'),
  ('Compiling', 'The compiler turns source code into object files with relocations.'),
  ('Archiving', 'An archive bundles object files; the linker extracts members on demand.');
SELECT title FROM docs WHERE docs MATCH 'linker' ORDER BY title;
SELECT title FROM docs WHERE docs MATCH 'symbols NOT lazily' ORDER BY title;
SELECT title FROM docs WHERE docs MATCH '"object files"' ORDER BY rank, title;
SELECT title, highlight(docs, 1, '[', ']') FROM docs WHERE docs MATCH 'reloc*' ORDER BY title;
SELECT title, snippet(docs, 1, '<', '>', '...', 4) FROM docs WHERE docs MATCH 'title:loading OR body:archive' ORDER BY title;

-- Bigger computation: primes via a recursive CTE, a string built with group_concat.
WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
SELECT count(*), max(i), sum(i) FROM n
WHERE NOT EXISTS (SELECT 1 FROM n AS d WHERE d.i * d.i <= n.i AND n.i % d.i = 0);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
SELECT length(group_concat(printf('%03d', i), ':')), substr(group_concat(printf('%03d', i), ':'), 1, 23) FROM n;
