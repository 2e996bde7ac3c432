/* xosc_xml.h — the libxml2 walking and the FILE:LINE: <element>: refusal that the scenario
** parser (xosc_parse.c) and the distribution reader (xosc_dist.c) share. */
#ifndef SN_SCENARIO_XOSC_XML_H
#define SN_SCENARIO_XOSC_XML_H

#include <sensim/sensim.h>

#include <libxml/tree.h>
#include <stdarg.h>

/* The node's line in its file, 0 for none. */
int sn_xml_line(xmlNodePtr n);
/* The element's name, "OpenSCENARIO" for none (the document). */
const char *sn_xml_name(xmlNodePtr n);
/* n is an element named `name`. */
bool sn_xml_is(xmlNodePtr n, const char *name);
/* c or the first element after it, NULL when none. */
xmlNodePtr sn_xml_next_el(xmlNodePtr c);
/* n's first element child named `name`, NULL when none. */
xmlNodePtr sn_xml_child(xmlNodePtr n, const char *name);
/* for each element child c of n */
#define SN_XML_EACH(c, n) for (xmlNodePtr c = sn_xml_next_el((n)->children); c; c = sn_xml_next_el(c->next))

/* The first refusal of a parse: "FILE:LINE: ELEMENT: what" into err, and *failed set; later ones
** are dropped (the first names the cause). Returns false, for `return fail(...)`. */
bool sn_xml_failv(sn_error *err, bool *failed, const char *file, xmlNodePtr n, const char *fmt, va_list ap);

#endif
