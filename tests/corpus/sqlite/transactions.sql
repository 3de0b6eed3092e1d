-- Transactions: COMMIT, ROLLBACK, savepoints, errors inside transactions,
-- triggers.
CREATE TABLE account (id INTEGER PRIMARY KEY, owner TEXT, balance INTEGER NOT NULL CHECK (balance >= 0));
CREATE TABLE audit (seq INTEGER PRIMARY KEY AUTOINCREMENT, account_id INTEGER, delta INTEGER, note TEXT);
CREATE TRIGGER account_audit AFTER UPDATE OF balance ON account
BEGIN
  INSERT INTO audit (account_id, delta, note) VALUES (new.id, new.balance - old.balance, 'update');
END;
INSERT INTO account VALUES (1, 'alice', 100), (2, 'bob', 50), (3, 'carol', 0);

BEGIN;
UPDATE account SET balance = balance - 30 WHERE id = 1;
UPDATE account SET balance = balance + 30 WHERE id = 2;
COMMIT;
SELECT id, owner, balance FROM account ORDER BY id;

BEGIN;
UPDATE account SET balance = balance - 70 WHERE id = 1;
UPDATE account SET balance = balance + 70 WHERE id = 3;
SELECT 'inside', sum(balance), (SELECT count(*) FROM audit) FROM account;
ROLLBACK;
SELECT 'after rollback', id, balance FROM account ORDER BY id;
SELECT seq, account_id, delta FROM audit ORDER BY seq;

-- A failing statement inside a transaction: only that statement is undone.
BEGIN;
UPDATE account SET balance = balance + 1 WHERE id = 2;
UPDATE account SET balance = balance - 1000 WHERE id = 1;
SELECT 'partial', id, balance FROM account ORDER BY id;
COMMIT;
SELECT id, balance FROM account ORDER BY id;

-- Savepoints.
SAVEPOINT outer_sp;
INSERT INTO account VALUES (4, 'dave', 10);
SAVEPOINT inner_sp;
INSERT INTO account VALUES (5, 'erin', 20);
UPDATE account SET balance = 999 WHERE id = 4;
ROLLBACK TO inner_sp;
SELECT 'after inner rollback', id, owner, balance FROM account WHERE id >= 4 ORDER BY id;
RELEASE inner_sp;
RELEASE outer_sp;
SELECT count(*), sum(balance) FROM account;

SAVEPOINT s1;
DELETE FROM account;
SELECT 'emptied', count(*) FROM account;
ROLLBACK TO s1;
RELEASE s1;
SELECT 'restored', count(*) FROM account;

-- Transaction state errors.
COMMIT;
ROLLBACK;
BEGIN;
BEGIN;
ROLLBACK;

-- A BEFORE trigger that raises aborts the statement.
CREATE TRIGGER no_bob BEFORE DELETE ON account WHEN old.owner = 'bob'
BEGIN
  SELECT RAISE(ABORT, 'bob stays');
END;
DELETE FROM account WHERE owner IN ('carol', 'bob');
SELECT owner FROM account ORDER BY id;
DELETE FROM account WHERE owner = 'carol';
SELECT owner FROM account ORDER BY id;

-- Bulk work in one transaction, then rolled back.
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)
INSERT INTO audit (account_id, delta, note) SELECT i % 3, i, 'bulk' FROM n;
SELECT count(*), sum(delta) FROM audit;
ROLLBACK;
SELECT count(*), max(seq) FROM audit;
SELECT name, seq FROM sqlite_sequence;
