#include <libheif/heif.h>
#include <dlfcn.h>
#include <pthread.h>

// libheif is opened on first use (dlopen), not linked: it brings the HEVC and AV1 codecs (libde265, libx265,
// libaom, dav1d, libstdc++) whose loading cost every swiftseg process ~5 ms, for photos of any format. The
// functions swiftseg calls, by their libheif names without the `heif_` prefix:
typedef struct {
    struct heif_context *(*_Nonnull context_alloc)(void);
    void (*_Nonnull context_free)(struct heif_context *);
    void (*_Nonnull context_set_maximum_image_size_limit)(struct heif_context *, int);
    void (*_Nonnull context_set_max_decoding_threads)(struct heif_context *, int);
    struct heif_error (*_Nonnull context_read_from_memory_without_copy)(struct heif_context *, const void *, size_t,
                                                                       const struct heif_reading_options *);
    struct heif_error (*_Nonnull context_get_primary_image_handle)(struct heif_context *, struct heif_image_handle **);
    void (*_Nonnull image_handle_release)(const struct heif_image_handle *);
    int (*_Nonnull image_handle_get_width)(const struct heif_image_handle *);
    int (*_Nonnull image_handle_get_height)(const struct heif_image_handle *);
    int (*_Nonnull image_handle_has_alpha_channel)(const struct heif_image_handle *);
    enum heif_color_profile_type (*_Nonnull image_handle_get_color_profile_type)(const struct heif_image_handle *);
    size_t (*_Nonnull image_handle_get_raw_color_profile_size)(const struct heif_image_handle *);
    struct heif_error (*_Nonnull image_handle_get_raw_color_profile)(const struct heif_image_handle *, void *);
    struct heif_error (*_Nonnull image_handle_get_nclx_color_profile)(const struct heif_image_handle *,
                                                                     struct heif_color_profile_nclx **);
    void (*_Nonnull nclx_color_profile_free)(struct heif_color_profile_nclx *);
    struct heif_decoding_options *(*_Nonnull decoding_options_alloc)(void);
    void (*_Nonnull decoding_options_free)(struct heif_decoding_options *);
    struct heif_error (*_Nonnull decode_image)(const struct heif_image_handle *, struct heif_image **,
                                               enum heif_colorspace, enum heif_chroma,
                                               const struct heif_decoding_options *);
    void (*_Nonnull image_release)(const struct heif_image *);
    int (*_Nonnull image_get_width)(const struct heif_image *, enum heif_channel);
    int (*_Nonnull image_get_height)(const struct heif_image *, enum heif_channel);
    const uint8_t *(*_Nonnull image_get_plane_readonly)(const struct heif_image *, enum heif_channel, int *);
    int (*_Nonnull image_get_bits_per_pixel_range)(const struct heif_image *, enum heif_channel);
} swiftseg_heif_api;

// Fills `table`; 1 when every function was found. (The state lives in swiftseg_heif's own statics: Swift's
// importer emits a header's functions, not its file-scope variables.)
static int swiftseg_heif_load(swiftseg_heif_api *table) {
    void *library = dlopen("libheif.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) return 0;
#define SWIFTSEG_HEIF(field) if (!(*(void **)&table->field = dlsym(library, "heif_" #field))) return 0;
    SWIFTSEG_HEIF(context_alloc) SWIFTSEG_HEIF(context_free) SWIFTSEG_HEIF(context_set_maximum_image_size_limit)
    SWIFTSEG_HEIF(context_set_max_decoding_threads) SWIFTSEG_HEIF(context_read_from_memory_without_copy)
    SWIFTSEG_HEIF(context_get_primary_image_handle) SWIFTSEG_HEIF(image_handle_release)
    SWIFTSEG_HEIF(image_handle_get_width) SWIFTSEG_HEIF(image_handle_get_height)
    SWIFTSEG_HEIF(image_handle_has_alpha_channel) SWIFTSEG_HEIF(image_handle_get_color_profile_type)
    SWIFTSEG_HEIF(image_handle_get_raw_color_profile_size) SWIFTSEG_HEIF(image_handle_get_raw_color_profile)
    SWIFTSEG_HEIF(image_handle_get_nclx_color_profile) SWIFTSEG_HEIF(nclx_color_profile_free)
    SWIFTSEG_HEIF(decoding_options_alloc) SWIFTSEG_HEIF(decoding_options_free) SWIFTSEG_HEIF(decode_image)
    SWIFTSEG_HEIF(image_release) SWIFTSEG_HEIF(image_get_width) SWIFTSEG_HEIF(image_get_height)
    SWIFTSEG_HEIF(image_get_plane_readonly) SWIFTSEG_HEIF(image_get_bits_per_pixel_range)
#undef SWIFTSEG_HEIF
    return 1;
}

// libheif's functions, opened once by the first caller; NULL when libheif.so.1 (Debian's libheif1) is missing or
// lacks one of them.
static inline const swiftseg_heif_api *_Nullable swiftseg_heif(void) {
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static swiftseg_heif_api table;
    static int tried, loaded;
    pthread_mutex_lock(&lock);
    if (!tried) { tried = 1; loaded = swiftseg_heif_load(&table); }
    pthread_mutex_unlock(&lock);
    return loaded ? &table : 0;
}
