#ifndef ICTKIT_BENCHMARK_LIBXML2_SHIM_H
#define ICTKIT_BENCHMARK_LIBXML2_SHIM_H

// Debian builds libxml2 with ICU; its headers then pull in ICU's, which clash
// with the ICU that Foundation ships. The benchmark uses no ICU entry point.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/xmlreader.h>

#endif
