/* xmlread.c — reading an XML document from memory with a FILE:LINE refusal (xmlread.h). */
#include "xmlread.h"

#include "error.h"

#include <stdio.h>
#include <string.h>

xmlDocPtr sn_xml_read_memory(const char *xml, size_t size, const char *name, xmlParserCtxtPtr *ctx, sn_error *err)
{
    *ctx = xmlNewParserCtxt();
    if (!*ctx) {
        sn_fail(err, SN_E_NOMEM, "%s: out of memory", name);
        return NULL;
    }
    /* No network, no entity expansion beyond libxml2's guards, line numbers past 65535. */
    xmlDocPtr doc = xmlCtxtReadMemory(*ctx, xml, (int)size, name, NULL,
                                      XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES |
                                          XML_PARSE_NOCDATA);
    if (!doc) {
        const xmlError *e = xmlCtxtGetLastError(*ctx);
        char msg[256] = "not well-formed XML";
        if (e && e->message) {
            snprintf(msg, sizeof msg, "%s", e->message);
            size_t n = strlen(msg);
            while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
                msg[--n] = 0;
        }
        sn_fail(err, SN_E_INVALID, "%s:%d: XML: %s", name, e ? e->line : 0, msg);
        xmlFreeParserCtxt(*ctx);
        *ctx = NULL;
    }
    return doc;
}
