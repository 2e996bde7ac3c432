/* xosc_xml.c — libxml2 helpers and the refusal shared by the OpenSCENARIO readers (xosc_xml.h). */
#include "xosc_xml.h"

#include "../core/error.h"

#include <stdio.h>
#include <string.h>

int sn_xml_line(xmlNodePtr n) { return n ? (int)xmlGetLineNo(n) : 0; }

const char *sn_xml_name(xmlNodePtr n) { return n ? (const char *)n->name : "OpenSCENARIO"; }

bool sn_xml_is(xmlNodePtr n, const char *name) { return n && strcmp((const char *)n->name, name) == 0; }

xmlNodePtr sn_xml_next_el(xmlNodePtr c)
{
    while (c && c->type != XML_ELEMENT_NODE)
        c = c->next;
    return c;
}

xmlNodePtr sn_xml_child(xmlNodePtr n, const char *name)
{
    SN_XML_EACH(c, n)
        if (sn_xml_is(c, name))
            return c;
    return NULL;
}

bool sn_xml_failv(sn_error *err, bool *failed, const char *file, xmlNodePtr n, const char *fmt, va_list ap)
{
    if (*failed)
        return false;
    char what[700];
    vsnprintf(what, sizeof what, fmt, ap);
    sn_fail(err, SN_E_INVALID, "%s:%d: %s: %s", file, sn_xml_line(n), sn_xml_name(n), what);
    *failed = true;
    return false;
}
