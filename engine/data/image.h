/* image.h — CARLA's ColorConverter and saving camera images (PNG, or netpbm.h's formats).
**
** Converters, per pixel of a BGRA image (carla-sensors.md §3):
**   raw               the colour as it is
**   depth             d = R + 256 G + 65536 B; n = d / 16777215.0f; gray = (uint8)(n * 255.0f + 0.5f)
**   logarithmic_depth v = 1 + ln(n) / 5.70378f clamped to [0.005, 1]; gray = (uint8)(v * 255 + 0.5f)
**   cityscapes        the CityScapes colour of the tag in R (CARLA's CityScapesPalette.h)
** PNGs and PPMs are written as 8-bit RGB. */
#ifndef SN_DATA_IMAGE_H
#define SN_DATA_IMAGE_H

#include "mpkey.h"

#include <msgpack.h>
#include <sensim/sensim.h>

typedef enum sn_converter { SN_CONV_RAW, SN_CONV_DEPTH, SN_CONV_LOG_DEPTH, SN_CONV_CITYSCAPES } sn_converter;

/* "raw", "depth", "logarithmic_depth", "cityscapes"; false for anything else. */
bool sn_converter_parse(const char *name, sn_converter *out);
/* Converts px BGRA pixels to RGB (3 bytes each) into rgb (caller's buffer). */
void sn_convert_bgra(sn_converter c, const uint8_t *bgra, size_t px, uint8_t *rgb);
/* The CityScapes colour of a tag (black beyond the table). */
const uint8_t *sn_cityscapes_color(uint8_t tag);

/*
** CARLA's DVSEventArray.to_image: a black W x H BGRA picture (alpha 0) where each event of the
** DVS `events` bin (13-byte records {x u16, y u16, t i64, pol u8}, little-endian) sets blue
** when positive and red when negative, so a pixel with both is magenta. false when an event
** lies outside the picture.
*/
bool sn_event_frame(const uint8_t *events, size_t n, uint32_t w, uint32_t h, uint8_t *bgra);

/*
** A path pattern has at most one integer conversion for the frame ("%06d", "%d") and "%%"
** for a percent sign. Returns false and a reason in err otherwise.
*/
bool sn_image_pattern_check(const char *pattern, sn_error *err);

/* The longest `save: path` pattern accepted (the formatted name must fit the writer's buffers). */
#define SN_SAVE_PATH_MAX 1024
/* dir/pattern(frame), the file a `save:` pattern names for a frame, into path[n]. */
sn_status sn_image_path(const char *dir, const char *pattern, uint64_t frame, char *path, size_t n, sn_error *err);
/* True when two checked patterns could name the same file for some frame numbers. */
bool sn_image_patterns_may_collide(const char *a, const char *b);
/*
** Saves the image of one camera message (a map with width, height and raw_data, or a DVS
** message with width, height and events: its event frame, then the converter) to
** dir/pattern(frame), creating folders as needed, in the format of the pattern's extension
** (netpbm.h). A PNG is also published under ticket `share` (png_share.h; 0: none). `scratch` is
** grown and reused (caller frees).
*/
sn_status sn_image_save_message(const msgpack_object *msg, const char *dir, const char *pattern, sn_converter c,
                                uint64_t share, uint8_t **scratch, size_t *scratch_cap, sn_error *err);
/* sn_image_save_message in two steps: the file's bytes (made), then the file (written). */
typedef struct sn_image_file {
    uint64_t frame;
    char head[32];        /* written before data (a PPM's header) */
    size_t head_len, len;
    const uint8_t *data;  /* in *scratch or the thread's PNG buffer (png.h): valid until the next call */
} sn_image_file;
sn_status sn_image_make_file(const msgpack_object *msg, const char *pattern, sn_converter c, uint64_t share,
                             uint8_t **scratch, size_t *cap, sn_image_file *out, sn_error *err);
sn_status sn_image_write_file(const char *dir, const char *pattern, const sn_image_file *file, sn_error *err);

/* The size and frame of a picture made by sn_image_picture. */
typedef struct sn_picture_size {
    uint32_t width, height;
    uint64_t frame;
} sn_picture_size;

/*
** The picture of one message as 8-bit RGB (rows packed) in *scratch (grown and reused; caller
** frees): a camera image through the converter, a DVS event frame, optical flow's colours, and
** with `points` the bird's-eye view of a lidar or radar message. What sn_image_save_message saves.
*/
sn_status sn_image_picture(const msgpack_object *msg, sn_converter c, bool points, uint8_t **scratch, size_t *cap,
                           sn_picture_size *out, sn_error *err);
/* The PNG file of a picture sn_image_picture made (its rgb and size), as sn_image_make_file
** makes it (the bytes in the thread's PNG buffer; published for `share`, png_share.h). */
sn_status sn_image_png_file(const uint8_t *rgb, sn_picture_size ps, uint64_t share, sn_image_file *out, sn_error *err);

/* sensim convert: every message of a stream file to DIR/%06d.EXT (ext: png, ppm, pgm or pfm;
** NULL: png); *written counts images. */
sn_status sn_convert_stream(const char *path, const char *dir, sn_converter c, const char *ext, size_t *written,
                            sn_error *err);

#endif
