/* attr_text.h — an attribute value as CARLA's actor.attributes holds it: a string. Compiled
** into the plugins that describe actors (collision, obstacle). */
#ifndef SN_PLUGIN_ATTR_TEXT_H
#define SN_PLUGIN_ATTR_TEXT_H

#include <sensim/attr.h>

#include <stddef.h>

/* Writes v into buf (NUL-terminated, cut at size); floats in the shortest text that reads back
** as the same double (%.15g, else %.17g). */
void sn_attr_text(const sn_value *v, char *buf, size_t size);

#endif
