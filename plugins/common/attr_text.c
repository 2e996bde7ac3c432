/* attr_text.c — see attr_text.h. */
#include "attr_text.h"

#include <stdio.h>
#include <stdlib.h>

void sn_attr_text(const sn_value *v, char *buf, size_t size)
{
    switch (v->type) {
    case SN_ATTR_BOOL: snprintf(buf, size, "%s", v->b ? "true" : "false"); break;
    case SN_ATTR_INT: snprintf(buf, size, "%lld", (long long)v->i); break;
    case SN_ATTR_FLOAT:
        snprintf(buf, size, "%.15g", v->f);
        if (strtod(buf, NULL) != v->f)
            snprintf(buf, size, "%.17g", v->f);
        break;
    case SN_ATTR_RGB: snprintf(buf, size, "%u,%u,%u", v->rgb[0], v->rgb[1], v->rgb[2]); break;
    default: snprintf(buf, size, "%s", v->s ? v->s : ""); break;
    }
}
