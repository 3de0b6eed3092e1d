/* A linker plugin made for testing rld as a host: it claims ELF objects that carry a
 * `.gnu.lto_.fake` section (what rld offers plugins: GCC-style LTO objects), reports
 * `fake_fn` as defined there and `helper_from_lib` as needed, and at all-symbols-read
 * writes the resolutions it was given to RES, then adds OBJ (the "compiled" code) and the
 * library `fakehelper` from LIBDIR. Options (-plugin-opt=): res=RES, obj=OBJ, libdir=DIR,
 * fail=error|fatal (report an error, or a fatal one and carry on as gcc's plugin does),
 * env=FILE (write there the environment variables the host passes to what it runs). */
#define _GNU_SOURCE
#include <stdint.h>
#include <plugin-api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static ld_plugin_message message;
static ld_plugin_add_symbols add_symbols;
static ld_plugin_get_symbols get_symbols;
static ld_plugin_add_input_file add_input_file;
static ld_plugin_add_input_library add_input_library;
static ld_plugin_set_extra_library_path set_extra_library_path;
static ld_plugin_get_view get_view;
static const char *res_path, *obj_path, *lib_dir, *fail, *env_path;
static void *claimed_handle;
static int cleaned_up;

static struct ld_plugin_symbol syms[2] = {
    {"fake_fn", NULL, LDPK_DEF, 0, 0, 0, LDPV_DEFAULT, 0, NULL, 0},
    {"helper_from_lib", NULL, LDPK_UNDEF, 0, 0, 0, LDPV_DEFAULT, 0, NULL, 0},
};

static int has_fake_section(const struct ld_plugin_input_file *file) {
  /* Reads the file through the descriptor, at its offset (archive members). */
  char *buf = malloc(file->filesize);
  if (!buf || pread(file->fd, buf, file->filesize, file->offset) != file->filesize) {
    free(buf);
    return 0;
  }
  int found = memmem(buf, file->filesize, ".gnu.lto_.fake", 14) != NULL;
  free(buf);
  return found;
}

static enum ld_plugin_status claim_file(const struct ld_plugin_input_file *file,
                                        int *claimed) {
  *claimed = 0;
  if (!has_fake_section(file))
    return LDPS_OK;
  if (get_view) {
    const void *view = NULL;
    if (get_view(file->handle, &view) != LDPS_OK || memcmp(view, "\177ELF", 4) != 0) {
      message(LDPL_ERROR, "%s: get_view gave no ELF file", file->name);
      return LDPS_ERR;
    }
  }
  claimed_handle = file->handle;
  *claimed = 1;
  return add_symbols(file->handle, 2, syms);
}

static enum ld_plugin_status all_symbols_read(void) {
  if (!claimed_handle)
    return LDPS_OK;
  if (get_symbols(claimed_handle, 2, syms) != LDPS_OK)
    return LDPS_ERR;
  if (res_path) {
    FILE *f = fopen(res_path, "w");
    fprintf(f, "fake_fn %d\nhelper_from_lib %d\n", syms[0].resolution, syms[1].resolution);
    fclose(f);
  }
  if (fail && !strcmp(fail, "error")) {
    message(LDPL_ERROR, "fake plugin: %s failed on purpose", "all-symbols-read");
    return LDPS_ERR;
  }
  if (fail && !strcmp(fail, "fatal"))
    message(LDPL_FATAL, "fake plugin: %s", "fatal on purpose");
  add_input_file(obj_path);
  set_extra_library_path(lib_dir);
  add_input_library("fakehelper");
  return LDPS_OK;
}

static enum ld_plugin_status cleanup(void) {
  cleaned_up = 1;
  if (res_path) {
    FILE *f = fopen(res_path, "a");
    fprintf(f, "cleanup\n");
    fclose(f);
  }
  return LDPS_OK;
}

enum ld_plugin_status onload(struct ld_plugin_tv *tv) {
  ld_plugin_register_claim_file register_claim = NULL;
  ld_plugin_register_all_symbols_read register_read = NULL;
  ld_plugin_register_cleanup register_cleanup = NULL;
  for (; tv->tv_tag != LDPT_NULL; tv++) {
    switch (tv->tv_tag) {
    case LDPT_MESSAGE: message = tv->tv_u.tv_message; break;
    case LDPT_ADD_SYMBOLS: add_symbols = tv->tv_u.tv_add_symbols; break;
    case LDPT_GET_SYMBOLS_V2: get_symbols = tv->tv_u.tv_get_symbols; break;
    case LDPT_ADD_INPUT_FILE: add_input_file = tv->tv_u.tv_add_input_file; break;
    case LDPT_ADD_INPUT_LIBRARY: add_input_library = tv->tv_u.tv_add_input_library; break;
    case LDPT_SET_EXTRA_LIBRARY_PATH:
      set_extra_library_path = tv->tv_u.tv_set_extra_library_path;
      break;
    case LDPT_GET_VIEW: get_view = tv->tv_u.tv_get_view; break;
    case LDPT_REGISTER_CLAIM_FILE_HOOK: register_claim = tv->tv_u.tv_register_claim_file; break;
    case LDPT_REGISTER_ALL_SYMBOLS_READ_HOOK:
      register_read = tv->tv_u.tv_register_all_symbols_read;
      break;
    case LDPT_REGISTER_CLEANUP_HOOK: register_cleanup = tv->tv_u.tv_register_cleanup; break;
    case LDPT_OPTION:
      if (!strncmp(tv->tv_u.tv_string, "res=", 4)) res_path = tv->tv_u.tv_string + 4;
      else if (!strncmp(tv->tv_u.tv_string, "obj=", 4)) obj_path = tv->tv_u.tv_string + 4;
      else if (!strncmp(tv->tv_u.tv_string, "libdir=", 7)) lib_dir = tv->tv_u.tv_string + 7;
      else if (!strncmp(tv->tv_u.tv_string, "fail=", 5)) fail = tv->tv_u.tv_string + 5;
      else if (!strncmp(tv->tv_u.tv_string, "env=", 4)) env_path = tv->tv_u.tv_string + 4;
      break;
    default: break;
    }
  }
  if (!register_claim || !register_read || !register_cleanup || !get_symbols)
    return LDPS_ERR;
  if (env_path) {
    const char *names[] = {"GLIBC_TUNABLES", "RLD_RESTARTED_WITH_TUNABLES"};
    FILE *f = fopen(env_path, "w");
    for (int i = 0; i < 2; i++) {
      const char *value = getenv(names[i]);
      fprintf(f, "%s=%s\n", names[i], value ? value : "(unset)");
    }
    fclose(f);
  }
  register_claim(claim_file);
  register_read(all_symbols_read);
  register_cleanup(cleanup);
  return LDPS_OK;
}
