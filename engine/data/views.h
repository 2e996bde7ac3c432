/* views.h — pictures of streams that are not colour images, for `sensim convert` (and `save:`):
**
** - optical flow (sensor.camera.optical_flow, raw_data W*H*2 float32): CARLA's
**   OpticalFlowImage.get_color_coded_flow, pixel by pixel in the same float arithmetic:
**   hue = 180 + atan2(y, x) * 360 / (2 * 3.1415) degrees (wrapped into [0, 360)), saturation 1,
**   value = clamp(ln(|v| + 0.999) / ln(0.1 + 0.999), 0, 1); HSV to RGB by 60-degree sectors,
**   each channel (uint8)((c + m) * 255). So a still pixel is black, |v| >= 0.1 (NDC units:
**   5 % of the image width) is full brightness, and the hue says the direction.
** - bird's-eye views of lidar and radar streams: SN_BEV_SIZE x SN_BEV_SIZE pixels, the sensor
**   at the centre, its +x (forward) up and +y (right) to the right, SN_BEV_M_PER_PX metres per
**   pixel (so +-SN_BEV_SIZE * SN_BEV_M_PER_PX / 2 m each way), black ground, the sensor a grey
**   3x3 mark. Points fall on the pixel holding their (x, y); later points paint over earlier.
**     sensor.lidar.ray_cast           16-byte {x, y, z, intensity} float32, sensor frame: grey
**                                     96 + 159 * clamp(intensity, 0, 1), 1 px
**     sensor.lidar.ray_cast_semantic  24-byte {x, y, z, cos_inc_angle f32, idx u32, tag u32}:
**                                     the tag's CityScapes colour, 1 px
**     sensor.other.radar              16-byte {velocity, azimuth, altitude, depth} float32: at
**                                     depth cos(alt) (cos az, sin az); CARLA's manual_control
**                                     colours (n = velocity / 7.5 m/s: R = clamp(1 - n), G =
**                                     clamp(1 - |n|), B = clamp(-(-1 - n)) in [0, 1]): parting
**                                     blue, still white, closing red; 3x3 px
**   Records that are not finite are skipped.
*/
#ifndef SN_DATA_VIEWS_H
#define SN_DATA_VIEWS_H

#include <stddef.h>
#include <stdint.h>

#define SN_BEV_SIZE 500
#define SN_BEV_M_PER_PX 0.2

/* CARLA's colour of one flow vector (x, y in CARLA's units), RGB. Non-finite input is black. */
void sn_flow_color(float x, float y, uint8_t rgb[3]);
/* W*H flow pixels (2 float32 each, little-endian bytes) to RGB. */
void sn_flow_image(const uint8_t *raw, size_t px, uint8_t *rgb);

typedef enum sn_bev_kind { SN_BEV_LIDAR, SN_BEV_SEMANTIC_LIDAR, SN_BEV_RADAR } sn_bev_kind;

/* The record size of a kind (16, 24, 16). */
size_t sn_bev_record_size(sn_bev_kind k);
/* Draws n records into rgb (SN_BEV_SIZE^2 * 3 bytes). */
void sn_bev_image(sn_bev_kind k, const uint8_t *records, size_t n, uint8_t *rgb);

#endif
