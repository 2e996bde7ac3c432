/* xmlread.h — reading an XML document from memory, the one way the map (OpenDRIVE) and the
** scenario (OpenSCENARIO) parsers do it, with the same FILE:LINE refusal. */
#ifndef SN_CORE_XMLREAD_H
#define SN_CORE_XMLREAD_H

#include <sensim/sensim.h>

#include <libxml/parser.h>

/*
** Parses `size` bytes of `xml` named `name` (for messages): no network, no entity expansion beyond
** libxml2's guards, line numbers past 65535. Returns the document and its parser context in *ctx
** (the caller frees both: xmlFreeDoc, then xmlFreeParserCtxt). NULL when the context cannot be
** made (SN_E_NOMEM, "NAME: out of memory") or the text is not well-formed (SN_E_INVALID,
** "NAME:LINE: XML: libxml2's message"); nothing is left to free then.
*/
xmlDocPtr sn_xml_read_memory(const char *xml, size_t size, const char *name, xmlParserCtxtPtr *ctx, sn_error *err);

#endif
