#include <stdio.h>
#include "CPropertyListSupport.h"

int ictkit_format_real(double value, char *buffer, int size) {
    return snprintf(buffer, (size_t)size, "%.17g", value);
}
