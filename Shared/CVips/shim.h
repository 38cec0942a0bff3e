#ifndef RENDEZVOUS_CVIPS_SHIM_H
#define RENDEZVOUS_CVIPS_SHIM_H
#include <malloc.h>
#include <vips/vips.h>

/// libvips's operations take their optional arguments as NULL-terminated varargs, which Swift
/// cannot call: one fixed-argument wrapper per use.

/// The image's header only (pixels are decoded later, on demand), failing on truncated or
/// damaged data rather than filling in grey.
static inline VipsImage *cvips_header(const void *bytes, size_t length) {
    return vips_image_new_from_buffer(bytes, length, "fail_on=truncated", NULL);
}

/// Shrinks (never enlarges) to fit a `side`×`side` box, decoding at a reduced scale where the
/// format allows, applies the EXIF orientation, and converts an image with an embedded colour
/// profile (a phone's Display P3) to sRGB, since the profile is not saved.
static inline int cvips_thumbnail(const void *bytes, size_t length, int side, VipsImage **out) {
    return vips_thumbnail_buffer((void *)bytes, length, out, side, "height", side, "size", VIPS_SIZE_DOWN,
                                 "export_profile", "srgb", "option_string", "fail_on=truncated", NULL);
}

/// The image over a white background when it has an alpha channel (JPEG has none).
static inline int cvips_flatten_white(VipsImage *in, VipsImage **out) {
    double white[3] = {255.0, 255.0, 255.0};
    VipsArrayDouble *background = vips_array_double_new(white, 3);
    int result = vips_flatten(in, out, "background", background, NULL);
    vips_area_unref(VIPS_AREA(background));
    return result;
}

/// JPEG without any metadata (no EXIF, XMP, IPTC or comments; no ICC profile either: the pixels
/// are sRGB after cvips_thumbnail).
static inline int cvips_jpegsave(VipsImage *in, int quality, void **bytes, size_t *length) {
    return vips_jpegsave_buffer(in, bytes, length, "Q", quality, "strip", TRUE, "optimize_coding", TRUE, NULL);
}

/// PNG without any metadata (no eXIf, text or XMP chunks).
static inline int cvips_pngsave(VipsImage *in, void **bytes, size_t *length) {
    return vips_pngsave_buffer(in, bytes, length, "strip", TRUE, "compression", 6, NULL);
}

/// HEIC (HEVC), as a phone saves a photo; media never writes HEIC (its tests make fixtures with it).
static inline int cvips_heifsave(VipsImage *in, int quality, void **bytes, size_t *length) {
    return vips_heifsave_buffer(in, bytes, length, "Q", quality, "compression", VIPS_FOREIGN_HEIF_COMPRESSION_HEVC, NULL);
}

/// Gives freed heap memory back to the system (glibc keeps large freed blocks otherwise): a
/// render's decoded pixels are tens of megabytes.
static inline void cvips_release_memory(void) { malloc_trim(0); }

static inline void cvips_unref(VipsImage *image) { g_object_unref(image); }
static inline void cvips_free(void *bytes) { g_free(bytes); }
#endif
