#include <png.h>
// zlib comes with libpng-dev (zlib1g-dev): swiftseg's own PNG writer uses it for compression levels, the reader for CRC-32.
#include <zlib.h>

// deflateInit2 is a macro (it passes zlib's version and stream size), which Swift cannot call.
static inline int swiftseg_deflateInit2(z_streamp stream, int level, int strategy) {
    return deflateInit2(stream, level, Z_DEFLATED, 15, 8, strategy);
}

// inflateInit is a macro too: the reader of PNG's iCCP chunk (a compressed colour profile) calls this.
static inline int swiftseg_inflateInit(z_streamp stream) {
    return inflateInit(stream);
}
