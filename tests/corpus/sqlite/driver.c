/*
 * Corpus driver for SQLite: opens an in-memory database, runs the SQL in a
 * file statement by statement and prints every result row.
 *
 *   driver file.sql
 *
 * Output (stdout only, so errors stay in order with the rows):
 *   - each row as its columns joined with '|'; NULL prints as NULL, a blob
 *     as X'hex';
 *   - "Error: <message>" for a statement that fails; execution goes on with
 *     the next statement, like the sqlite3 shell in batch mode.
 * Exit status: 0, or 1 if the file or the database could not be opened.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sqlite3.h"

static void print_row(sqlite3_stmt *stmt) {
  int n = sqlite3_column_count(stmt);
  for (int i = 0; i < n; i++) {
    if (i > 0)
      putchar('|');
    switch (sqlite3_column_type(stmt, i)) {
    case SQLITE_NULL:
      fputs("NULL", stdout);
      break;
    case SQLITE_BLOB: {
      const unsigned char *p = sqlite3_column_blob(stmt, i);
      int len = sqlite3_column_bytes(stmt, i);
      fputs("X'", stdout);
      for (int j = 0; j < len; j++)
        printf("%02X", p[j]);
      putchar('\'');
      break;
    }
    default:
      fputs((const char *)sqlite3_column_text(stmt, i), stdout);
      break;
    }
  }
  putchar('\n');
}

/* Runs every statement in `sql`; prints rows and errors. */
static void run(sqlite3 *db, const char *sql) {
  while (*sql != '\0') {
    sqlite3_stmt *stmt = NULL;
    const char *tail = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, &tail) != SQLITE_OK) {
      /* The tail is not reliable after a failed prepare: the caller only
       * passes complete statements, so drop the rest of this chunk. */
      printf("Error: %s\n", sqlite3_errmsg(db));
      return;
    }
    if (stmt == NULL) { /* whitespace or comment only */
      sql = tail;
      continue;
    }
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW)
      print_row(stmt);
    if (rc != SQLITE_DONE)
      printf("Error: %s\n", sqlite3_errmsg(db));
    sqlite3_finalize(stmt);
    sql = tail;
  }
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s file.sql\n", argv[0]);
    return 1;
  }
  FILE *in = fopen(argv[1], "r");
  if (in == NULL) {
    perror(argv[1]);
    return 1;
  }
  sqlite3 *db;
  if (sqlite3_open(":memory:", &db) != SQLITE_OK) {
    fprintf(stderr, "cannot open database: %s\n", sqlite3_errmsg(db));
    return 1;
  }

  /* Collect lines until they form complete statements, then run them. */
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  char *buf = NULL;
  size_t used = 0;
  while ((len = getline(&line, &cap, in)) != -1) {
    buf = realloc(buf, used + (size_t)len + 1);
    if (buf == NULL) {
      fprintf(stderr, "out of memory\n");
      return 1;
    }
    memcpy(buf + used, line, (size_t)len + 1);
    used += (size_t)len;
    if (sqlite3_complete(buf)) {
      run(db, buf);
      used = 0;
      buf[0] = '\0';
    }
  }
  if (used > 0 && strspn(buf, " \t\r\n") != used)
    run(db, buf);
  free(buf);
  free(line);
  fclose(in);
  sqlite3_close(db);
  fflush(stdout);
  return 0;
}
