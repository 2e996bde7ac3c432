/*
** msg.h — the two V2X message bodies as fixed-size records, so the medium keeps them in
** arrays reused frame after frame (no allocation per message).
*/
#ifndef SN_V2X_MSG_H
#define SN_V2X_MSG_H

#include <stdbool.h>
#include <stdint.h>

/* CARLA's CustomV2XBytes: at most 100 bytes of text. */
#define SN_V2X_TEXT_MAX 100

/* ETSI station types (CARLA's CaService table). */
enum {
    SN_V2X_ST_UNKNOWN = 0, SN_V2X_ST_PEDESTRIAN = 1, SN_V2X_ST_CYCLIST = 2, SN_V2X_ST_MOTORCYCLE = 4,
    SN_V2X_ST_PASSENGER_CAR = 5, SN_V2X_ST_BUS = 6, SN_V2X_ST_LIGHT_TRUCK = 7, SN_V2X_ST_SPECIAL = 10,
    SN_V2X_ST_TRAM = 11, SN_V2X_ST_RSU = 15
};

/* High-frequency container kinds. */
enum { SN_V2X_HF_NONE = 0, SN_V2X_HF_VEHICLE = 1, SN_V2X_HF_RSU = 2 };

typedef struct sn_v2x_cam {
    uint32_t generation_delta_time; /* ms of simulated time mod 65536 */
    uint8_t station_type;
    int64_t latitude, longitude;    /* 0.1 microdegree */
    int64_t altitude;               /* cm */
    uint8_t hf;                     /* SN_V2X_HF_* */
    int64_t heading;                /* 0.1 degree from north, clockwise */
    int64_t speed;                  /* cm/s */
    uint8_t drive_direction;        /* 0 forward, 1 backward */
    int64_t length, width;          /* 0.1 m (the standard's unit) */
    int64_t lon_acc, lat_acc, vert_acc; /* 0.1 m/s^2 */
    int64_t yaw_rate;               /* 0.01 deg/s */
    bool lf;                        /* the low-frequency container is present */
    uint8_t vehicle_role;
    uint8_t exterior_lights;
} sn_v2x_cam;

typedef struct sn_v2x_msg {
    uint32_t station_id;   /* the ITS header's: the parent actor's id (the sensor's own when free) */
    uint32_t sender;       /* index of the sender's name in the medium's name table */
    uint32_t sender_id;    /* the sending sensor's id */
    uint8_t message_id;    /* 0 custom, 2 CAM */
    uint8_t len;           /* custom: bytes of text */
    char text[SN_V2X_TEXT_MAX];
    sn_v2x_cam cam;
    /* The CAM encoded once for every receiver this frame (output.c): bytes [packed_at,
    ** packed_at + packed_len) of the medium's packed buffer; packed_len 0 = not encoded. */
    uint32_t packed_at, packed_len;
    /* A foreign payload (foreign.c): bytes [payload_at, payload_at + payload_len) of the
    ** medium's payloads buffer; payload_len 0 for this plugin's own messages. */
    uint32_t payload_at, payload_len;
} sn_v2x_msg;

#endif
