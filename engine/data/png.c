/* png.c — stb_image_write compiled here, privately (static), so that its zlib compressor can
** be libdeflate's: Debian's libstb is built with stb's own, slower deflate. */
#include "png.h"

#include <errno.h>
#include <fcntl.h>
#include <libdeflate.h>
#include <unistd.h>
#include <pthread.h>
#include <stdlib.h>

/* Level 3: about as small as level 6 on rendered images, and faster (bench_outputs). */
#define SN_PNG_LEVEL 3

static unsigned char *sn_png_zlib(unsigned char *data, int len, int *out_len, int quality);

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBI_WRITE_NO_STDIO_UNUSED
#define STBIW_ZLIB_COMPRESS sn_png_zlib
#include <stb_image_write.h>
#pragma GCC diagnostic pop

/* One compressor per thread, kept (allocating one costs more than compressing a small image)
** and freed when its thread ends. */
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static pthread_key_t key;
static void free_compressor(void *c) { libdeflate_free_compressor(c); }
static void make_key(void) { (void)pthread_key_create(&key, free_compressor); }

static unsigned char *sn_png_zlib(unsigned char *data, int len, int *out_len, int quality)
{
    (void)quality;
    pthread_once(&key_once, make_key);
    struct libdeflate_compressor *compressor = pthread_getspecific(key);
    if (!compressor) {
        if (!(compressor = libdeflate_alloc_compressor(SN_PNG_LEVEL)))
            return NULL;
        pthread_setspecific(key, compressor);
    }
    size_t cap = libdeflate_zlib_compress_bound(compressor, (size_t)len);
    unsigned char *out = malloc(cap); /* stb frees it with STBIW_FREE (free) */
    if (!out)
        return NULL;
    size_t n = libdeflate_zlib_compress(compressor, data, (size_t)len, out, cap);
    if (!n) {
        free(out);
        return NULL;
    }
    *out_len = (int)n;
    return out;
}

/* One filter for every row (Up) instead of stb trying all five per row: rendered images are
** smooth, so they compress smaller than stb's choice gave, at a seventh of the cost. Set once:
** the variable belongs to our private copy of stb. */
static pthread_once_t filter_once = PTHREAD_ONCE_INIT;
static void force_filter(void) { stbi_write_force_png_filter = 2; }

uint8_t *sn_png_encode_rgb(int width, int height, const uint8_t *rgb, size_t *size)
{
    pthread_once(&filter_once, force_filter);
    int len = 0;
    unsigned char *png = stbi_write_png_to_mem(rgb, width * 3, width, height, 3, &len);
    *size = png ? (size_t)len : 0;
    return png;
}

bool sn_png_write_rgb(const char *path, int width, int height, const uint8_t *rgb)
{
    /* encoded in memory and written here, not with stbi_write_png, which checks neither its
    ** writes nor its close: a full disk left a truncated PNG behind a success */
    size_t len = 0;
    unsigned char *png = sn_png_encode_rgb(width, height, rgb, &len);
    if (!png) {
        errno = ENOMEM;
        return false;
    }
    /* never through a link planted where the image goes */
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
    bool ok = fd >= 0;
    for (size_t done = 0; ok && done < len;) {
        ssize_t n = write(fd, png + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        ok = n > 0;
        if (n == 0)
            errno = ENOSPC;
        done += ok ? (size_t)n : 0;
    }
    int saved = errno;
    if (fd >= 0 && close(fd) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    if (!ok && fd >= 0)
        unlink(path); /* no truncated image left behind */
    STBIW_FREE(png);
    errno = saved;
    return ok;
}
