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

/// Whether the image embeds a colour profile (ICC).
static inline int cvips_has_profile(VipsImage *image) { return vips_image_get_typeof(image, VIPS_META_ICC_NAME) != 0; }

/// Shrinks (never enlarges) to fit a `side`×`side` box, decoding at a reduced scale where the
/// format allows, and applies the EXIF orientation. With `to_srgb` it also converts the pixels
/// from the image's embedded colour profile (a phone's Display P3) to sRGB, since the profile is
/// not saved. Ask for that only when there is a profile: without one the pixels are already
/// taken as sRGB (CMYK is converted either way), and the conversion would then only cost time
/// (about 15 ms a call here to set up the transform, most of a small photo's rendering), shift
/// the colours a little, and make a greyscale image three bands.
static inline int cvips_thumbnail(const void *bytes, size_t length, int side, int to_srgb, VipsImage **out) {
    if (to_srgb) {
        return vips_thumbnail_buffer((void *)bytes, length, out, side, "height", side, "size", VIPS_SIZE_DOWN,
                                     "export_profile", "srgb", "option_string", "fail_on=truncated", NULL);
    }
    return vips_thumbnail_buffer((void *)bytes, length, out, side, "height", side, "size", VIPS_SIZE_DOWN,
                                 "option_string", "fail_on=truncated", NULL);
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
/// are sRGB after cvips_thumbnail, converted when the upload had a profile).
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
