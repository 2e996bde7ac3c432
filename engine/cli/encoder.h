/* encoder.h — the sensim program's few uses of FFmpeg's libraries (Debian's libavcodec,
** libavformat, libswscale): an H.264 MP4 or an animated GIF written frame by frame, picture
** scaling, and a PNG in memory for the report's thumbnails.
**
** Settings are fixed so that the same frames give the same bytes with the same FFmpeg build:
** one encoder thread, bit-exact flags (no library version strings in the container), no
** wall-clock time. H.264 is libx264 (preset veryfast, CRF 18, yuv420p, BT.601 limited range,
** tagged so), with the index at the front of the file (faststart) so a browser plays it at once. */
#ifndef SN_CLI_ENCODER_H
#define SN_CLI_ENCODER_H

#include <sensim/sensim.h>

#include <stddef.h>
#include <stdint.h>

typedef enum sn_enc_kind { SN_ENC_H264_MP4, SN_ENC_GIF } sn_enc_kind;

typedef struct sn_enc sn_enc;

/*
** Opens an encoder writing `path` (the file is created by FFmpeg: give a staging name).
** width and height are even for H.264. Timestamps passed to the put calls count `tb`
** (seconds = pts * tb_num / tb_den); `rate_num/rate_den` is the nominal frame rate written in
** the container. Free with sn_enc_close.
*/
sn_enc *sn_enc_open(const char *path, sn_enc_kind kind, int width, int height, int tb_num, int tb_den, int rate_num,
                    int rate_den, sn_error *err);
/* H.264: one RGB picture (width x height, rows packed) at pts. */
sn_status sn_enc_put_rgb(sn_enc *e, const uint8_t *rgb, int64_t pts, sn_error *err);
/* GIF: one picture of palette indices (width x height bytes) with its 256 colours (0xAARRGGBB). */
sn_status sn_enc_put_indexed(sn_enc *e, const uint8_t *idx, const uint32_t palette[256], int64_t pts,
                             sn_error *err);
/* Drains the encoder and writes the container's trailer. */
sn_status sn_enc_finish(sn_enc *e, sn_error *err);
/* NULL-safe; frees everything (a file not finished is left for the caller to remove). */
void sn_enc_close(sn_enc *e);

/* Scales an RGB picture (area averaging; bit-exact) from sw x sh to dw x dh into dst. */
sn_status sn_rgb_scale(const uint8_t *src, int sw, int sh, uint8_t *dst, int dw, int dh, sn_error *err);

/* A whole PNG file of an RGB picture in memory: *png (malloc'd, caller frees) of *len bytes. */
sn_status sn_png_encode(const uint8_t *rgb, int w, int h, uint8_t **png, size_t *len, sn_error *err);

#endif
