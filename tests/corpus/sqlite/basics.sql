-- Tables, constraints, inserts, updates, deletes, ordering, types.
CREATE TABLE users (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  email TEXT,
  age INTEGER CHECK (age >= 0),
  score REAL DEFAULT 0.0,
  avatar BLOB
);
INSERT INTO users (name, email, age, score) VALUES
  ('alice', 'alice@example.com', 34, 91.5),
  ('bob', NULL, 27, 78.25),
  ('carol', 'carol@example.org', 45, 88.0),
  ('dave', 'dave@example.net', 19, 65.75),
  ('erin', 'erin@example.com', 52, 99.9);
INSERT INTO users (name, age, avatar) VALUES ('frank', 31, x'DEADBEEF00');
SELECT * FROM users ORDER BY id;
SELECT name, age FROM users WHERE age BETWEEN 20 AND 40 ORDER BY age DESC;
SELECT name FROM users WHERE email LIKE '%.com' ORDER BY name;
SELECT name, coalesce(email, '(none)') FROM users WHERE email IS NULL OR avatar IS NOT NULL;
SELECT typeof(id), typeof(name), typeof(email), typeof(score), typeof(avatar) FROM users WHERE name = 'frank';

-- Constraint violations report errors and leave the table unchanged.
INSERT INTO users (name, age) VALUES ('alice', 20);
INSERT INTO users (name, age) VALUES ('gina', -1);
INSERT INTO users (email) VALUES ('nobody@example.com');
SELECT count(*) FROM users;

UPDATE users SET score = score + 5 WHERE age < 30;
SELECT changes(), total_changes();
DELETE FROM users WHERE name = 'frank';
SELECT changes(), group_concat(name, ',') FROM users;
UPDATE users SET name = upper(substr(name, 1, 1)) || substr(name, 2);
SELECT id, name, score FROM users ORDER BY score DESC, name LIMIT 3 OFFSET 1;

-- Conflict clauses and upsert.
INSERT OR IGNORE INTO users (name, age) VALUES ('Alice', 1);
INSERT OR REPLACE INTO users (id, name, age) VALUES (2, 'Bobby', 28);
INSERT INTO users (id, name, age) VALUES (3, 'Caroline', 46)
  ON CONFLICT (id) DO UPDATE SET name = excluded.name, age = excluded.age;
SELECT id, name, age, email FROM users ORDER BY id;

-- Indexes and the query plan does not change results.
CREATE INDEX users_age ON users (age);
SELECT name FROM users WHERE age > 30 ORDER BY age;
SELECT name FROM users INDEXED BY users_age WHERE age > 30 ORDER BY age;

-- ALTER TABLE, views, CAST, generated columns.
ALTER TABLE users ADD COLUMN country TEXT DEFAULT 'nz';
ALTER TABLE users RENAME COLUMN score TO points;
CREATE VIEW adults AS SELECT name, age, country FROM users WHERE age >= 21;
SELECT * FROM adults ORDER BY name;
SELECT CAST('42abc' AS INTEGER), CAST(3.99 AS INTEGER), CAST(17 AS TEXT) || '!', CAST('1e3' AS REAL);
CREATE TABLE rect (w REAL, h REAL, area REAL GENERATED ALWAYS AS (w * h) STORED);
INSERT INTO rect (w, h) VALUES (2, 3), (1.5, 4), (10, 0.1);
SELECT w, h, area FROM rect ORDER BY area;

-- Syntax errors are reported and execution continues.
SELEC 1;
SELECT * FROM no_such_table;
SELECT 'still running';
