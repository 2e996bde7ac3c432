/* Attribute parsing and table validation: the rules every plugin's table is held to. */
#include "../../engine/plugin/attr.h"
#include "../check.h"

#include <stdio.h>
#include <stdlib.h>

static const char *const modes[] = {"fast", "slow", NULL};
static const sn_attr_def good[] = {
    {"fov", SN_ATTR_FLOAT, "90", NULL, NULL, true, 0.0001, 179.9999, "deg", "field of view"},
    {"size", SN_ATTR_INT, "800", NULL, NULL, true, 1, 8192, NULL, "width"},
    {"on", SN_ATTR_BOOL, "true", NULL, NULL, false, 0, 0, NULL, "switch"},
    {"tint", SN_ATTR_RGB, "255,0,10", NULL, NULL, false, 0, 0, NULL, "colour"},
    {"mode", SN_ATTR_ENUM, "slow", NULL, modes, false, 0, 0, NULL, "mode"},
    {"label", SN_ATTR_STRING, "", NULL, NULL, false, 0, 0, NULL, "text"},
};

static sn_status parse(int i, const char *text, sn_value *v)
{
    char why[256];
    return sn_attr_parse(&good[i], text, v, why, sizeof why);
}

/* A scene's positions for the test's two attributes: key at line k+3 col 5, value col 10/11. */
static void where_of(const void *user, uint32_t k, bool value, char *buf, size_t n)
{
    (void)user;
    snprintf(buf, n, "s.yaml:%u:%d", k + 3, value ? (k ? 11 : 10) : 5);
}

int main(void)
{
    sn_error err;
    sn_value v;
    CHECK(sn_attr_table_check(good, 6, sizeof good[0], &err) == SN_OK, "%s", err.msg);

    CHECK(parse(0, "45.5", &v) == SN_OK && v.f == 45.5, "float");
    CHECK(parse(0, "180", &v) == SN_E_RANGE, "fov 180 is outside (0, 180)");
    CHECK(parse(0, "abc", &v) == SN_E_INVALID, "not a float");
    CHECK(parse(0, "", &v) == SN_E_INVALID, "empty is not a float");
    CHECK(parse(1, "0", &v) == SN_E_RANGE, "size 0 out of range");
    CHECK(parse(1, "12.5", &v) == SN_E_INVALID, "an int has no fraction");
    CHECK(parse(1, "640", &v) == SN_OK && v.i == 640, "int");
    CHECK(parse(2, "False", &v) == SN_OK && !v.b, "bool is case-insensitive");
    CHECK(parse(2, "yes", &v) == SN_E_INVALID, "yes is not a bool");
    CHECK(parse(3, "1, 2,3", &v) == SN_OK && v.rgb[0] == 1 && v.rgb[1] == 2 && v.rgb[2] == 3, "rgb with spaces");
    CHECK(parse(3, "1,2,256", &v) == SN_E_INVALID, "rgb component > 255");
    CHECK(parse(3, "1,2", &v) == SN_E_INVALID, "rgb needs three");
    CHECK(parse(3, "1,2,3,4", &v) == SN_E_INVALID, "rgb takes three only");
    CHECK(parse(4, "fast", &v) == SN_OK && v.i == 0 && strcmp(v.s, "fast") == 0, "enum");
    CHECK(parse(4, "medium", &v) == SN_E_INVALID, "enum outside choices");

    /* Tables a loader must refuse. */
    sn_attr_def bad[2];
    memcpy(bad, good, sizeof bad);
    bad[1].name = "fov";
    CHECK(sn_attr_table_check(bad, 2, sizeof bad[0], &err) != SN_OK, "duplicate name");
    CHECK_CONTAINS(err.msg, "defined twice");
    memcpy(bad, good, sizeof bad);
    bad[0].def = "200";
    CHECK(sn_attr_table_check(bad, 1, sizeof bad[0], &err) != SN_OK, "default out of range");
    CHECK_CONTAINS(err.msg, "bad default");
    memcpy(bad, good, sizeof bad);
    bad[0].name = "Field Of View";
    CHECK(sn_attr_table_check(bad, 1, sizeof bad[0], &err) != SN_OK, "bad name");
    memcpy(bad, good, sizeof bad);
    bad[0].min = 10, bad[0].max = 5;
    CHECK(sn_attr_table_check(bad, 1, sizeof bad[0], &err) != SN_OK, "empty range");
    memcpy(bad, good, sizeof bad);
    bad[0].def = NULL;
    CHECK(sn_attr_table_check(bad, 1, sizeof bad[0], &err) != SN_OK, "no default");

    /* Given values resolve in table order, with defaults for what is absent; errors name where
    ** the key (unknown attribute) or the value (bad value) was written, through `where`. */
    sn_attribute sa[2] = {{"fov", "60"}, {"tint", "1,2,3"}};
    const sn_attr_where where = {where_of, NULL};
    sn_value *vals;
    CHECK(sn_attr_resolve(good, 6, sizeof good[0], NULL, "sensor.x", sa, 2, &where, NULL, &vals, &err) == SN_OK, "%s", err.msg);
    CHECK(vals[0].f == 60 && vals[1].i == 800 && vals[3].rgb[2] == 3 && strcmp(vals[4].s, "slow") == 0, "resolved");
    free(vals);
    sa[1].key = "tilt";
    CHECK(sn_attr_resolve(good, 6, sizeof good[0], NULL, "sensor.x", sa, 2, &where, NULL, &vals, &err) != SN_OK, "unknown");
    CHECK_CONTAINS(err.msg, "s.yaml:4:5: unknown attribute 'tilt' for blueprint 'sensor.x'");
    sa[1].key = "size";
    sa[1].value = "big";
    CHECK(sn_attr_resolve(good, 6, sizeof good[0], NULL, "sensor.x", sa, 2, &where, NULL, &vals, &err) != SN_OK, "type");
    CHECK_CONTAINS(err.msg, "s.yaml:4:11: attribute 'size' of 'sensor.x': expected an int");
    /* from the API (no where): "spawn:" */
    CHECK(sn_attr_resolve(good, 6, sizeof good[0], NULL, "sensor.x", sa, 2, NULL, NULL, &vals, &err) != SN_OK, "type");
    CHECK_CONTAINS(err.msg, "spawn: attribute 'size' of 'sensor.x': expected an int");
    /* which attributes were given */
    bool *g = sn_attr_given(good, 6, sizeof good[0], sa, 2);
    CHECK(g && g[0] && g[1] && !g[2] && !g[3] && !g[4] && !g[5], "given: fov and size");
    free(g);
    return CHECK_DONE();
}
