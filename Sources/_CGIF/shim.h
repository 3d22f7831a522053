#include <string.h>
#include <gif_lib.h>

// giflib reads through a callback: a memory reader over the caller's bytes (which stay the caller's).

typedef struct {
    const GifByteType *data;
    size_t size, position;
} swiftseg_gif_memory;

static inline int swiftseg_gif_read(GifFileType *gif, GifByteType *buffer, int count) {
    swiftseg_gif_memory *m = (swiftseg_gif_memory *)gif->UserData;
    if (count <= 0 || m->position >= m->size) return 0;
    size_t n = m->size - m->position < (size_t)count ? m->size - m->position : (size_t)count;
    memcpy(buffer, m->data + m->position, n);
    m->position += n;
    return (int)n;
}

/// Opens the GIF in `m` (its data and size set): the screen descriptor and global colour map read; NULL with
/// giflib's error code in `error` on failure.
static inline GifFileType *swiftseg_gif_open(swiftseg_gif_memory *m, int *error) {
    m->position = 0;
    return DGifOpen(m, swiftseg_gif_read, error);
}
