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

// A thread's generic error handler, which libxml2 calls for the few messages
// it prints without a parser context ("xmlParseChunk: encoder error"). Swift
// cannot write the variadic C function a handler is, nor hold one.
typedef struct {
    xmlGenericErrorFunc handler;
    void *context;
} ictkit_generic_error_handler;

static inline void ictkit_drop_generic_error(void *context, const char *message, ...) {
    (void)context;
    (void)message;
}

// Makes this thread's generic errors dropped; returns the handler to restore.
static inline ictkit_generic_error_handler ictkit_drop_generic_errors(void) {
    ictkit_generic_error_handler previous = {*__xmlGenericError(), *__xmlGenericErrorContext()};
    xmlSetGenericErrorFunc(NULL, ictkit_drop_generic_error);
    return previous;
}

static inline void ictkit_restore_generic_errors(ictkit_generic_error_handler previous) {
    xmlSetGenericErrorFunc(previous.context, previous.handler);
}

#endif
