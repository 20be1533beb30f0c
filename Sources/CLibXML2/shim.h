#ifndef ICTKIT_CLIBXML2_SHIM_H
#define ICTKIT_CLIBXML2_SHIM_H

// Debian builds libxml2 with ICU; its headers then pull in ICU's, which clash
// with the ICU that Foundation ships. We never use libxml2's ICU entry points.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/xmlreader.h>
#include <libxml/valid.h>
#include <libxml/xmlerror.h>
#include <libxml/tree.h>

#endif
