/* png.h — PNG encoding for saved camera images: sensim's own small writer (8-bit RGB, one IDAT,
** per-row None/Sub/Up filters) over libdeflate, with the thread's buffers kept between images. */
#ifndef SN_DATA_PNG_H
#define SN_DATA_PNG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The PNG of an 8-bit RGB image (3 bytes per pixel, rows packed) in the calling thread's own
** buffer: valid until that thread's next sn_png_encode_* call (freed when the thread ends).
** NULL when out of memory. Deterministic: the same pixels give the same bytes on any thread. */
const uint8_t *sn_png_encode_rgb_tls(int width, int height, const uint8_t *rgb, size_t *size);
/* How many PNGs this process has encoded (what tests count to see one encoding shared). */
uint64_t sn_png_encoded(void);
/* The same PNG in memory (*size bytes; the caller frees it with free()); NULL when out of memory. */
uint8_t *sn_png_encode_rgb(int width, int height, const uint8_t *rgb, size_t *size);
/* Writes an 8-bit RGB PNG; false (errno set) when it cannot be written. */
bool sn_png_write_rgb(const char *path, int width, int height, const uint8_t *rgb);
/* Writes hn bytes of head (may be 0) then len bytes of data as a new file at path (never through a
** link; a failed write leaves no file); false with errno set. */
bool sn_write_file(const char *path, const void *head, size_t hn, const void *data, size_t len);

#endif
