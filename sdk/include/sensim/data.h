/*
** sensim/data.h — typed reading of sensor messages, with no msgpack library of your own.
**
** A listener (sn_engine_listen) receives each message as msgpack bytes (sn_message.data,
** .size); a stream file holds the same messages back to back. These calls read the common ones
** into plain structs:
**
**   static void on_image(const sn_message *m, void *user) {
**       sn_data_image im = {.struct_size = sizeof im};
**       if (sn_data_image_read(m->data, m->size, &im, NULL) == SN_OK)
**           use(im.width, im.height, im.pixels);              // B G R A, row-major
**   }
**
** Ownership: nothing is allocated. Pointers in the structs (pixels, records, strings) point into
** the message bytes and are valid as long as those are — in a listener, during the call only;
** copy what you keep. Strings are (pointer, length) pairs, not NUL-terminated. Bulk records are
** packed little-endian and may be unaligned inside the message: read them with the *_at calls,
** which copy one record into an aligned struct. Every call checks the bytes (bounds, types, sizes
** agreeing with width and height) and returns SN_E_INVALID naming what is wrong, never reading
** outside [data, data + size). The layouts are docs/c-api.md's and `sensim dump --decode`'s.
** Stream files hold the same messages: sn_stream_file_* (below) hands them out one by one.
*/
#ifndef SENSIM_DATA_H
#define SENSIM_DATA_H

#include <sensim/records.h>
#include <sensim/sensim.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Text inside a message: `len` bytes at `ptr`, no terminating NUL. */
typedef struct sn_data_str {
    const char *ptr;
    size_t len;
} sn_data_str;

/* The header every message starts with. Set struct_size = sizeof(sn_data_header). */
typedef struct sn_data_header {
    uint32_t struct_size;
    uint64_t frame;
    double timestamp;        /* s */
    sn_data_str sensor;      /* the sensor's name in the scene */
    sn_data_str type;        /* its blueprint id */
    uint32_t sensor_id;
    sn_transform transform;  /* the sensor's, world frame */
} sn_data_header;
SN_API sn_status sn_data_header_read(const void *data, size_t size, sn_data_header *out, sn_error *err);

/*
** A camera image (sensor.camera.rgb, .depth, .semantic_segmentation, .instance_segmentation):
** width x height pixels of 4 bytes, B G R A, row-major from the top left. The depth camera with
** depth_float also carries `depth`, width x height float32 metres. Set struct_size.
*/
typedef struct sn_data_image {
    uint32_t struct_size;
    uint32_t width, height;
    double fov;                /* horizontal, degrees */
    const uint8_t *pixels;     /* width * height * 4 bytes */
    const uint8_t *depth;      /* width * height * 4 bytes of float32, or NULL */
} sn_data_image;
SN_API sn_status sn_data_image_read(const void *data, size_t size, sn_data_image *out, sn_error *err);
/* The depth in metres at pixel (x, y) of a depth camera's image: the float when the message has
** one, else CARLA's 24-bit decoding of the pixel, 1000 (R + 256 G + 65536 B) / (2^24 - 1).
** NAN outside the image. */
SN_API double sn_data_image_depth_at(const sn_data_image *im, uint32_t x, uint32_t y);

/* One actor as a collision event describes it (CARLA's carla.Actor). */
typedef struct sn_data_actor {
    uint32_t id;
    sn_data_str type_id;     /* "vehicle.sedan", "static.prop.box" */
    uint8_t semantic_tag;    /* sn_tag */
    uint32_t parent;         /* 0 = none */
    sn_data_str role_name;
} sn_data_actor;

/* One sensor.other.collision message. Set struct_size = sizeof(sn_data_collision). */
typedef struct sn_data_collision {
    uint32_t struct_size;
    sn_data_actor actor;        /* the sensor's parent */
    sn_data_actor other_actor;  /* what it hit */
    sn_vec3 normal_impulse;     /* N*s, world frame, summed over the frame's substeps */
    sn_vec3 location;           /* world point of the strongest contact */
    sn_vec3 normal;             /* contact normal there, from other_actor into actor */
} sn_data_collision;
SN_API sn_status sn_data_collision_read(const void *data, size_t size, sn_data_collision *out, sn_error *err);

/* One DVS event (CARLA's DVSEvent), decoded from its 13 packed bytes. */
typedef struct sn_dvs_event {
    uint16_t x, y;
    int64_t t;   /* ns of simulated time since the start */
    bool pol;    /* true = positive (brighter) */
} sn_dvs_event;

/* One sensor.camera.dvs message. Set struct_size = sizeof(sn_data_events). */
typedef struct sn_data_events {
    uint32_t struct_size;
    uint32_t width, height;
    double fov;
    size_t count;             /* events */
    const uint8_t *events;    /* count * 13 bytes: x u16, y u16, t i64, pol u8 */
    const uint8_t *labels;    /* with event_labels: count * 5 bytes: tag u8, actor id u32; else NULL */
} sn_data_events;
SN_API sn_status sn_data_events_read(const void *data, size_t size, sn_data_events *out, sn_error *err);
/* Event i (< count), and its label (tag, id; both 0 without labels). */
SN_API sn_dvs_event sn_data_event_at(const sn_data_events *ev, size_t i);
SN_API void sn_data_event_label_at(const sn_data_events *ev, size_t i, uint8_t *tag, uint32_t *id);

/*
** Points or detections: sensor.lidar.ray_cast (sn_point_xyzi), sensor.lidar.ray_cast_semantic
** (sn_semantic_point), sensor.other.radar (sn_radar_detection), records as sensim/records.h
** declares them. Set struct_size = sizeof(sn_data_points).
*/
typedef enum sn_points_kind { SN_POINTS_LIDAR = 1, SN_POINTS_SEMANTIC_LIDAR = 2, SN_POINTS_RADAR = 3 } sn_points_kind;
typedef struct sn_data_points {
    uint32_t struct_size;
    sn_points_kind kind;
    size_t count;             /* records */
    size_t record_size;       /* 16, 24, 16 */
    const uint8_t *records;   /* count * record_size bytes */
    uint32_t channels;        /* lidars: CARLA's get_channel_count; 0 for radar */
    double horizontal_angle;  /* lidars: radians, where the next tick starts (CARLA's field) */
} sn_data_points;
SN_API sn_status sn_data_points_read(const void *data, size_t size, sn_data_points *out, sn_error *err);
/* Record i (< count) of the matching kind; a zero record for another kind. */
SN_API sn_point_xyzi sn_data_lidar_point_at(const sn_data_points *p, size_t i);
SN_API sn_semantic_point sn_data_semantic_point_at(const sn_data_points *p, size_t i);
SN_API sn_radar_detection sn_data_radar_detection_at(const sn_data_points *p, size_t i);

/*
** A stream file (OUT/<sensor>.msgpack) message by message, for the readers above:
**
**   sn_stream_file *f = sn_stream_file_open("out/crash.msgpack", &err);
**   const void *m; size_t n;
**   while (sn_stream_file_next(f, &m, &n, &err) == SN_OK) { ... sn_data_collision_read(m, n, ...) ... }
**   sn_stream_file_close(f);    // the loop ends with SN_E_NOT_FOUND at the end of the file
**
** A message is valid until the next call on f. The file is read in chunks and each message is
** checked before it is handed out (the limits `sensim dump` applies): a truncated or corrupt
** file is SN_E_INVALID naming the message and byte, after the whole messages before it.
** sn_stream_file is sensim.h's sn_stream_reader handing out bytes (SDK 1.6: one reader, with
** its checks and its sentences); sn_stream_reader_next also reads the header.
*/
typedef struct sn_stream_file sn_stream_file;
SN_API sn_stream_file *sn_stream_file_open(const char *path, sn_error *err);
SN_API sn_status sn_stream_file_next(sn_stream_file *f, const void **data, size_t *size, sn_error *err);
SN_API void sn_stream_file_close(sn_stream_file *f); /* NULL-safe */

#ifdef __cplusplus
}
#endif

#endif
