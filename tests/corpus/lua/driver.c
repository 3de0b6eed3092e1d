/*
 * Corpus driver for Lua 5.4 (stands in for lua.c): runs one script file
 * through the C API and prints uncaught errors, with a traceback, to stderr.
 *
 *   driver script.lua [args...]
 *
 * The script sees its arguments in the global `arg` (arg[0] = script) and a
 * small C library `host`, so that calls from Lua into C and back from C into
 * Lua go through code linked into the executable.
 *
 * Exit status: 0 if the script ran to the end, 1 on an uncaught error,
 * 2 on bad usage.
 */
#include <stdio.h>
#include <stdlib.h>

#include "lauxlib.h"
#include "lua.h"
#include "lualib.h"

/* host.adler32(s) -> integer: Adler-32 of a string, computed in C. */
static int host_adler32(lua_State *L) {
  size_t len;
  const unsigned char *s = (const unsigned char *)luaL_checklstring(L, 1, &len);
  unsigned long a = 1, b = 0;
  for (size_t i = 0; i < len; i++) {
    a = (a + s[i]) % 65521;
    b = (b + a) % 65521;
  }
  lua_pushinteger(L, (lua_Integer)((b << 16) | a));
  return 1;
}

/* host.fold(f, acc, ...) -> acc: acc = f(acc, x) for each extra argument,
 * calling back into Lua from C. */
static int host_fold(lua_State *L) {
  int n = lua_gettop(L);
  luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_pushvalue(L, 2);
  for (int i = 3; i <= n; i++) {
    lua_pushvalue(L, 1);
    lua_insert(L, -2);
    lua_pushvalue(L, i);
    lua_call(L, 2, 1);
  }
  return 1;
}

static const luaL_Reg host_lib[] = {
    {"adler32", host_adler32},
    {"fold", host_fold},
    {NULL, NULL},
};

/* Message handler: turns the error into "message + traceback". */
static int msghandler(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (msg == NULL) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
      return 1;
    msg = lua_pushfstring(L, "(error object is a %s value)",
                          luaL_typename(L, 1));
  }
  luaL_traceback(L, L, msg, 1);
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s script.lua [args...]\n", argv[0]);
    return 2;
  }
  lua_State *L = luaL_newstate();
  if (L == NULL) {
    fprintf(stderr, "driver: cannot create Lua state\n");
    return 1;
  }
  luaL_openlibs(L);

  luaL_newlib(L, host_lib);
  lua_pushstring(L, "rld-corpus");
  lua_setfield(L, -2, "name");
  lua_setglobal(L, "host");

  lua_createtable(L, argc - 2, 1);
  for (int i = 1; i < argc; i++) {
    lua_pushstring(L, argv[i]);
    lua_rawseti(L, -2, i - 1);
  }
  lua_setglobal(L, "arg");

  lua_pushcfunction(L, msghandler);
  int base = lua_gettop(L);
  int status = luaL_loadfile(L, argv[1]);
  if (status == LUA_OK)
    status = lua_pcall(L, 0, 0, base);
  fflush(stdout);
  if (status != LUA_OK) {
    const char *msg = lua_tostring(L, -1);
    fprintf(stderr, "driver: %s\n", msg != NULL ? msg : "(no message)");
  }
  lua_close(L);
  return status == LUA_OK ? EXIT_SUCCESS : EXIT_FAILURE;
}
