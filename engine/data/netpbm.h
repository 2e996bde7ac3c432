/* netpbm.h — uncompressed image files for users who post-process the pictures anyway (no
** compression to pay for, nothing to decode): chosen by the extension of a `save:` path or
** `sensim convert --format` (docs/sensors/cameras.md, "Saving images").
**
**   .png  8-bit RGB PNG, the picture through the converter (the default)
**   .ppm  binary P6, maxval 255: the same picture as the PNG, uncompressed
**   .pgm  binary P5, one channel: a depth camera's depth at 16 bits (maxval 65535, big-endian as
**         Netpbm says): round(n * 65535) with n = d / 16777215 the normalised depth (so metres =
**         value / 65535 * 1000), or with logarithmic_depth round(v * 65535) of CARLA's formula;
**         a segmentation camera's semantic tag at 8 bits (maxval 255) with converter raw
**   .pfm  "Pf" grey float32 little-endian (scale -1.0), rows bottom to top as PFM has them: a
**         depth camera's depth in metres (the float `depth` field when the camera sends one,
**         else n * 1000 from the 24-bit code) */
#ifndef SN_DATA_NETPBM_H
#define SN_DATA_NETPBM_H

#include "image.h"

typedef enum sn_image_format { SN_FMT_PNG, SN_FMT_PPM, SN_FMT_PGM, SN_FMT_PFM } sn_image_format;

/* The format of a path by its extension; false for none of the four. */
bool sn_image_format_of(const char *path, sn_image_format *out);
/* Whether a sensor (blueprint id) with converter c can be saved in format f; false with the
** reason in why (a sentence without the path). */
bool sn_image_format_fits(sn_image_format f, const char *blueprint, sn_converter c, char *why, size_t n);

/* The file of one camera message in a one-channel or float format (.pgm, .pfm) into *buf (grown
** and reused; caller frees), *len bytes. SN_E_INVALID when the message is not a picture the
** format holds (a .pgm of a colour camera). */
sn_status sn_netpbm_of_message(sn_image_format f, const msgpack_object *msg, sn_converter c, uint8_t **buf,
                               size_t *cap, size_t *len, sn_picture_size *size, sn_error *err);
/* The header of a P6 file of w x h 8-bit RGB pixels (the pixels follow it) into head; its length. */
size_t sn_ppm_header(char head[32], uint32_t w, uint32_t h);

#endif
