#ifndef ICTKIT_CPROPERTYLISTSUPPORT_H
#define ICTKIT_CPROPERTYLISTSUPPORT_H

/// Writes `value` as C's "%.17g" does (the way CoreFoundation writes XML
/// reals) into `buffer` of `size` bytes; returns the length written.
/// A plain call, so Swift need not build a va_list for every real.
int ictkit_format_real(double value, char *buffer, int size);

#endif
