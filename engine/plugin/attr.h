/* attr.h — parsing, validating and resolving blueprint attributes.
**
** One parser serves the defaults in a plugin's table, the recommended values and the scene's
** values, so a default that loads is a value a scene could have written. */
#ifndef SN_PLUGIN_ATTR_H
#define SN_PLUGIN_ATTR_H

#include <sensim/attr.h>
#include <sensim/sensim.h>

/* The i-th definition of a table laid out with `stride` bytes per entry. */
static inline const sn_attr_def *sn_attr_at(const sn_attr_def *defs, size_t stride, uint32_t i)
{
    return (const sn_attr_def *)(const void *)((const char *)defs + (size_t)i * stride);
}

const char *sn_attr_type_name(sn_attr_type t);

/* Parses `text` as a value of `def`. On failure writes why (a phrase) and returns SN_E_INVALID
** or SN_E_RANGE. out->s points into `text` or into def's static strings. */
sn_status sn_attr_parse(const sn_attr_def *def, const char *text, sn_value *out, char *why, size_t why_n);

/* Checks a definition table: names, types, defaults, ranges, choices. */
sn_status sn_attr_table_check(const sn_attr_def *defs, uint32_t n, size_t stride, sn_error *err);

/* Where the k-th given attribute was written (its key, or its value when `value`), for errors:
** "file:line:col" into buf. A scene's (frame/scene_spawn.c); NULL where: "spawn". */
typedef struct sn_attr_where {
    void (*fn)(const void *user, uint32_t k, bool value, char *buf, size_t n);
    const void *user;
} sn_attr_where;

/*
** Resolves the given attributes (keys and values as text, n_given of them, keys and values
** not NULL) against a table into one heap block: an array of n values (in table order)
** followed by the strings they point to. *out is freed by the caller with free().
** `defaults`: the table's defaults already parsed (n of them, as sn_attr_parse gives them;
** the library's, sn_blueprint.defaults), or NULL to parse them here.
** `blueprint` and `where` name things in errors (where NULL: values from the API, errors then
** start "spawn:"). Keys listed in `extra_keys` (NULL-terminated, may be NULL) are accepted
** but skipped: the host handles them.
*/
sn_status sn_attr_resolve(const sn_attr_def *defs, uint32_t n, size_t stride, const sn_value *defaults,
                          const char *blueprint, const sn_attribute *given, uint32_t n_given, const sn_attr_where *where,
                          const char *const *extra_keys, sn_value **out, sn_error *err);

/* For each of the n attributes, whether `given` sets it (host->attribute_given): a calloc'd
** array of n bools the caller frees, NULL when out of memory. */
bool *sn_attr_given(const sn_attr_def *defs, uint32_t n, size_t stride, const sn_attribute *given, uint32_t n_given);

/* Index of the attribute named `name`, or -1. */
int sn_attr_find(const sn_attr_def *defs, uint32_t n, size_t stride, const char *name);

#endif
