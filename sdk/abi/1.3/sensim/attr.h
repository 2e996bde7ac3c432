/*
** sensim/attr.h — blueprint attribute definitions and their typed values.
**
** A sensor class declares a static table of sn_attr_def. The host validates the table when it
** loads the plugin (unique [a-z0-9_] names, a default of the right type inside the range, an
** enum default among its choices) and validates every scene value against it, so that set()
** receives values that are already typed and checked, one per table entry, in table order.
**
** Defaults and recommended values are written as CARLA writes them: strings ("90", "true",
** "255,0,0", "highway"). The host parses them with the same parser as scene values.
*/
#ifndef SENSIM_ATTR_H
#define SENSIM_ATTR_H

#include <sensim/abi.h>

typedef enum sn_attr_type {
    SN_ATTR_BOOL = 0,
    SN_ATTR_INT = 1,
    SN_ATTR_FLOAT = 2,
    SN_ATTR_STRING = 3,
    SN_ATTR_RGB = 4, /* "r,g,b", each 0..255 */
    SN_ATTR_ENUM = 5 /* one of choices[], case-sensitive */
} sn_attr_type;

/*
** One attribute of a blueprint. Arrays of these are read with the stride given in
** sn_sensor_class.attr_def_size, so the struct may grow at its end like the others.
*/
typedef struct sn_attr_def {
    const char *name;                /* [a-z0-9_]+, unique within the blueprint */
    sn_attr_type type;
    const char *def;                 /* default, as a CARLA-style string; never NULL */
    const char *const *recommended;  /* NULL-terminated advisory values, or NULL */
    const char *const *choices;      /* SN_ATTR_ENUM: NULL-terminated allowed values */
    bool has_range;                  /* min/max apply (INT and FLOAT) */
    double min, max;                 /* inclusive */
    const char *unit;                /* "m", "deg", "s", "Hz", or NULL */
    const char *doc;                 /* one line */
} sn_attr_def;

/*
** A validated value. Only the member of the attribute's type is meaningful. `s` is owned by
** the host and lives as long as the sensor instance. For ENUM, `i` is the index into
** choices[] and `s` the chosen string.
*/
typedef struct sn_value {
    sn_attr_type type;
    bool b;
    int64_t i;
    double f;
    const char *s;
    uint8_t rgb[3];
} sn_value;

#endif
