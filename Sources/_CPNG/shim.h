#include <png.h>
// zlib comes with libpng-dev (zlib1g-dev): swiftseg's own PNG writer uses it for compression levels.
#include <zlib.h>
