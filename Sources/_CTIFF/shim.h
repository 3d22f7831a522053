#include <stdio.h>
#include <string.h>
#include <stdarg.h>
#include <tiffio.h>

// libtiff reads from file handles through callbacks, and its tag getter is variadic, which Swift cannot call:
// a memory reader (the file's bytes stay the caller's) and fixed-argument getters for the tags swiftseg reads.

typedef struct {
    const uint8_t *data;
    uint64_t size, position;
    char message[256];  // libtiff's last error, for the caller's message
} swiftseg_tiff_memory;

static inline tmsize_t swiftseg_tiff_read(thandle_t h, void *buffer, tmsize_t count) {
    swiftseg_tiff_memory *m = (swiftseg_tiff_memory *)h;
    if (count < 0 || m->position >= m->size) return 0;
    uint64_t n = m->size - m->position < (uint64_t)count ? m->size - m->position : (uint64_t)count;
    memcpy(buffer, m->data + m->position, n);
    m->position += n;
    return (tmsize_t)n;
}
static inline tmsize_t swiftseg_tiff_write(thandle_t h, void *buffer, tmsize_t count) { (void)h; (void)buffer; (void)count; return 0; }
static inline toff_t swiftseg_tiff_seek(thandle_t h, toff_t offset, int whence) {
    swiftseg_tiff_memory *m = (swiftseg_tiff_memory *)h;
    uint64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? m->position : m->size;
    if ((int64_t)offset < 0 && (uint64_t)(-(int64_t)offset) > base) return (toff_t)-1;
    m->position = base + offset;
    return m->position;
}
static inline int swiftseg_tiff_close(thandle_t h) { (void)h; return 0; }
static inline toff_t swiftseg_tiff_size(thandle_t h) { return ((swiftseg_tiff_memory *)h)->size; }
static inline int swiftseg_tiff_map(thandle_t h, void **base, toff_t *size) { (void)h; (void)base; (void)size; return 0; }
static inline void swiftseg_tiff_unmap(thandle_t h, void *base, toff_t size) { (void)h; (void)base; (void)size; }

static inline int swiftseg_tiff_error(TIFF *tif, void *user, const char *module, const char *format, va_list ap) {
    (void)tif; (void)module;
    swiftseg_tiff_memory *m = (swiftseg_tiff_memory *)user;
    if (m && m->message[0] == 0) vsnprintf(m->message, sizeof m->message, format, ap);
    return 1;  // handled: nothing printed
}
static inline int swiftseg_tiff_warning(TIFF *tif, void *user, const char *module, const char *format, va_list ap) {
    (void)tif; (void)user; (void)module; (void)format; (void)ap;
    return 1;  // warnings (unknown tags, …) are not errors and not printed
}

/// Opens the TIFF in `m` (its data and size set), errors into `m->message`, no single allocation over
/// `max_alloc` bytes; NULL on failure.
static inline TIFF *swiftseg_tiff_open(swiftseg_tiff_memory *m, tmsize_t max_alloc) {
    m->position = 0;
    m->message[0] = 0;
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (!options) return NULL;
    TIFFOpenOptionsSetErrorHandlerExtR(options, swiftseg_tiff_error, m);
    TIFFOpenOptionsSetWarningHandlerExtR(options, swiftseg_tiff_warning, m);
    TIFFOpenOptionsSetMaxSingleMemAlloc(options, max_alloc);
    TIFF *tif = TIFFClientOpenExt("memory", "rm", (thandle_t)m, swiftseg_tiff_read, swiftseg_tiff_write,
                                  swiftseg_tiff_seek, swiftseg_tiff_close, swiftseg_tiff_size,
                                  swiftseg_tiff_map, swiftseg_tiff_unmap, options);
    TIFFOpenOptionsFree(options);
    return tif;
}

static inline uint32_t swiftseg_tiff_u32(TIFF *tif, uint32_t tag) {
    uint32_t v = 0;
    return TIFFGetField(tif, tag, &v) ? v : 0;
}
static inline uint16_t swiftseg_tiff_u16(TIFF *tif, uint32_t tag, uint16_t otherwise) {
    uint16_t v = otherwise;
    return TIFFGetFieldDefaulted(tif, tag, &v) ? v : otherwise;
}
/// Whether the first image has an alpha channel (an extra sample that is associated or unassociated alpha).
static inline int swiftseg_tiff_has_alpha(TIFF *tif) {
    uint16_t count = 0, *kinds = NULL;
    if (!TIFFGetField(tif, TIFFTAG_EXTRASAMPLES, &count, &kinds) || !kinds) return 0;
    for (uint16_t i = 0; i < count; i++) {
        if (kinds[i] == EXTRASAMPLE_ASSOCALPHA || kinds[i] == EXTRASAMPLE_UNASSALPHA) return 1;
    }
    return 0;
}
/// The ICC profile tag's bytes (owned by libtiff until the file is closed), or 0.
static inline uint32_t swiftseg_tiff_icc(TIFF *tif, const void **data) {
    uint32_t count = 0;
    *data = NULL;
    return TIFFGetField(tif, TIFFTAG_ICCPROFILE, &count, data) && *data ? count : 0;
}
