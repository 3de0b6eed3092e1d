-- Joins: inner, left, self, cross, using/natural, subqueries, set ops.
CREATE TABLE dept (id INTEGER PRIMARY KEY, name TEXT, floor INTEGER);
CREATE TABLE emp (id INTEGER PRIMARY KEY, name TEXT, dept_id INTEGER REFERENCES dept(id),
                  manager_id INTEGER REFERENCES emp(id), salary INTEGER);
CREATE TABLE project (id INTEGER PRIMARY KEY, title TEXT, dept_id INTEGER);
CREATE TABLE assignment (emp_id INTEGER, project_id INTEGER, hours INTEGER,
                         PRIMARY KEY (emp_id, project_id)) WITHOUT ROWID;
INSERT INTO dept VALUES (1, 'Engineering', 3), (2, 'Sales', 1), (3, 'Support', 1), (4, 'Legal', 5);
INSERT INTO emp VALUES
  (1, 'Ann', 1, NULL, 150000), (2, 'Ben', 1, 1, 120000), (3, 'Cat', 1, 1, 125000),
  (4, 'Dan', 2, NULL, 90000), (5, 'Eve', 2, 4, 70000), (6, 'Fay', 3, 4, 60000),
  (7, 'Gus', NULL, 1, 50000), (8, 'Hal', 1, 2, 110000);
INSERT INTO project VALUES (10, 'Linker', 1), (11, 'Loader', 1), (12, 'Pipeline', 2), (13, 'Helpdesk', 3), (14, 'Orphan', 9);
INSERT INTO assignment VALUES (1, 10, 20), (2, 10, 35), (3, 11, 40), (8, 10, 12), (8, 11, 30),
  (4, 12, 10), (5, 12, 38), (6, 13, 40), (2, 11, 5);

SELECT e.name, d.name FROM emp e JOIN dept d ON d.id = e.dept_id ORDER BY e.id;
SELECT e.name, coalesce(d.name, '-') FROM emp e LEFT JOIN dept d ON d.id = e.dept_id ORDER BY e.name;
SELECT d.name, count(e.id) FROM dept d LEFT JOIN emp e ON e.dept_id = d.id GROUP BY d.id ORDER BY d.id;
SELECT e.name, m.name AS manager FROM emp e LEFT JOIN emp m ON m.id = e.manager_id ORDER BY e.id;
SELECT p.title, group_concat(e.name, '+') FROM project p
  JOIN assignment a ON a.project_id = p.id JOIN emp e ON e.id = a.emp_id
  GROUP BY p.id ORDER BY p.id;
SELECT p.title FROM project p LEFT JOIN dept d ON d.id = p.dept_id WHERE d.id IS NULL;
SELECT count(*) FROM dept CROSS JOIN project;
SELECT name, floor FROM dept NATURAL JOIN (SELECT id, 'x' AS tag FROM dept WHERE floor = 1) ORDER BY name;
SELECT e.name FROM emp e WHERE e.salary > (SELECT avg(salary) FROM emp) ORDER BY e.salary DESC;
SELECT e.name FROM emp e WHERE EXISTS (SELECT 1 FROM assignment a WHERE a.emp_id = e.id AND a.hours >= 38) ORDER BY 1;
SELECT name FROM emp WHERE dept_id IN (SELECT id FROM dept WHERE floor = 1) ORDER BY name;
SELECT name FROM emp WHERE id NOT IN (SELECT emp_id FROM assignment) ORDER BY name;
SELECT name FROM emp WHERE dept_id = 1 UNION SELECT name FROM emp WHERE salary < 70000 ORDER BY 1;
SELECT name FROM emp WHERE dept_id = 1 INTERSECT SELECT name FROM emp WHERE salary > 115000 ORDER BY 1;
SELECT name FROM emp EXCEPT SELECT e.name FROM emp e JOIN assignment a ON a.emp_id = e.id ORDER BY 1;
SELECT 1 AS n UNION ALL SELECT 1 UNION ALL SELECT 2;

-- Foreign keys, enforced once switched on.
PRAGMA foreign_keys = ON;
INSERT INTO emp VALUES (9, 'Ivy', 42, NULL, 1);
DELETE FROM dept WHERE id = 1;
INSERT INTO emp VALUES (9, 'Ivy', 4, NULL, 1);
SELECT e.name, d.name FROM emp e JOIN dept d ON d.id = e.dept_id WHERE e.id = 9;
SELECT count(*) FROM dept;
