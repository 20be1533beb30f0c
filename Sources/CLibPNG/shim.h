#ifndef ICTKIT_CLIBPNG_SHIM_H
#define ICTKIT_CLIBPNG_SHIM_H

// libpng's simplified API (png_image_*): errors are reported through the
// png_image struct, so no setjmp/longjmp crosses into Swift.
#include <png.h>

// The macros Swift cannot import, as constants.
static const unsigned int ictkit_png_image_version = PNG_IMAGE_VERSION;
static const unsigned int ictkit_png_format_rgba = PNG_FORMAT_RGBA;
static const unsigned int ictkit_png_format_rgb = PNG_FORMAT_RGB;
static const unsigned int ictkit_png_image_error = PNG_IMAGE_ERROR;

#endif
