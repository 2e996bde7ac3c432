/* png.h — PNG encoding for saved camera images: stb_image_write's encoder with libdeflate as
** its compressor (stb's own zlib was 79 % of a demo run that saves images). */
#ifndef SN_DATA_PNG_H
#define SN_DATA_PNG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Writes an 8-bit RGB (3 bytes per pixel, rows packed) PNG; false when the file cannot be written. */
/* The same PNG in memory (*size bytes; the caller frees it with free()); NULL when out of memory. */
uint8_t *sn_png_encode_rgb(int width, int height, const uint8_t *rgb, size_t *size);
bool sn_png_write_rgb(const char *path, int width, int height, const uint8_t *rgb);

#endif
