/* The plugin loader against plugins broken on purpose: each is refused with its file and the
** reason, and the good ones load. argv[1]: collision plugin folder, argv[2]: test plugins. */
#include "../../engine/plugin/library.h"
#include "../check.h"

static const sn_plugin_file *find(const sn_library *lib, const char *file)
{
    for (size_t i = 0; i < lib->n_plugins; i++) {
        const char *slash = strrchr(lib->plugins[i]->path, '/');
        if (slash && strcmp(slash + 1, file) == 0)
            return lib->plugins[i];
    }
    return NULL;
}

/* The loader's warnings, one line each. */
static char warnings[8192];
static void on_log(sn_log_level level, const char *line, void *user)
{
    (void)user;
    if (level == SN_LOG_WARN) {
        size_t len = strlen(warnings);
        snprintf(warnings + len, sizeof warnings - len, "%s\n", line);
    }
}

static void expect_refused(const sn_library *lib, const char *file, const char *why)
{
    const sn_plugin_file *p = find(lib, file);
    CHECK(p != NULL, "%s was not seen", file);
    if (!p)
        return;
    CHECK(p->reason && strstr(p->reason, why), "%s: reason '%s', want '%s'", file, p->reason ? p->reason : "(loaded)", why);
    CHECK(p->handle == NULL, "%s: a refused plugin stays closed", file);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    sn_library lib;
    sn_error err;
    CHECK(sn_library_init(&lib, &err) == SN_OK, "%s", err.msg);
    lib.quiet = true;
    CHECK(sn_library_load_dir(&lib, argv[1], &err) == SN_OK, "%s", err.msg);
    CHECK(sn_library_load_dir(&lib, argv[2], &err) == SN_OK, "%s", err.msg);

    expect_refused(&lib, "broken_noentry.so", "has no 'sn_plugin_entry' symbol");
    expect_refused(&lib, "broken_abi_major.so", "built for sensim ABI 99.");
    char newer[64];
    snprintf(newer, sizeof newer, "sensor class 0 was built for sensim ABI %d.%d", SN_ABI_MAJOR, SN_ABI_MINOR + 1);
    expect_refused(&lib, "broken_abi_minor.so", newer);
    expect_refused(&lib, "broken_size.so", "struct_size");
    expect_refused(&lib, "broken_null.so", "returned NULL");
    expect_refused(&lib, "broken_noserialize.so", "lacks a required callback (serialize)");
    expect_refused(&lib, "broken_attrs.so", "invalid attribute table: attribute 'gain': bad default: 20 is outside the range [0, 10]");
    expect_refused(&lib, "broken_dup.so", "duplicate blueprint id 'sensor.other.collision' (already provided by");
    expect_refused(&lib, "not_a_plugin.so", "cannot be loaded:");

    const sn_plugin_file *good = find(&lib, "good_test.so");
    CHECK(good && !good->reason && good->handle, "good_test.so loads: %s", good && good->reason ? good->reason : "");
    const sn_blueprint *bp = sn_library_find(&lib, "sensor.test.good");
    CHECK(bp && bp->kind == SN_ACTOR_SENSOR && bp->n_attrs == 1, "good blueprint registered");
    CHECK(sn_library_find(&lib, "sensor.other.collision") != NULL, "collision registered");
    CHECK(sn_library_find(&lib, "sensor.test.broken") == NULL, "refused plugins register nothing");
    CHECK(sn_library_refused(&lib) == 9, "nine refused, got %zu", sn_library_refused(&lib));
    /* Optional callbacks an older plugin lacks read as NULL in the host's copy. */
    CHECK(bp && bp->cls->tick == NULL && bp->cls->call == NULL, "absent callbacks are NULL");
    /* Loading the same folder again does not load the same files twice. */
    size_t before = lib.n_plugins;
    sn_library_load_dir(&lib, argv[1], &err);
    CHECK(lib.n_plugins == before, "a file reached twice loads once");
    /* A class asking for tick phases without tick or class_tick loads, with a warning naming it. */
    const sn_plugin_file *notick = find(&lib, "warn_notick.so");
    CHECK(notick && !notick->reason && sn_library_find(&lib, "sensor.test.notick"), "warn_notick.so loads");
    sn_library_free(&lib);
    CHECK(sn_library_init(&lib, &err) == SN_OK, "%s", err.msg);
    lib.log = on_log;
    CHECK(sn_library_load_dir(&lib, argv[2], &err) == SN_OK, "%s", err.msg);
    CHECK(strstr(warnings, "warn_notick.so: 'sensor.test.notick' asks for tick phases (mask 0x2) but has neither tick "
                           "nor class_tick") != NULL, "no warning for a class without tick: %s", warnings);
    CHECK(!strstr(warnings, "'sensor.test.good' asks"), "a warning for the good plugin: %s", warnings);
    sn_library_free(&lib);
    return CHECK_DONE();
}
