/*
** sensim/v2x.h — the V2X radio medium for any plugin (ABI 1.6): the settings of a station, a
** message as it reached a station, and the vtable of the class that carries the medium.
**
** A plugin joins the medium with host->v2x_join (host.h), sends payloads with host->v2x_send
** and reads what reached its actor with host->v2x_received. The medium is the one of
** sensor.other.v2x_custom (plugins/v2x): CARLA's path loss, shadow fading and line of sight,
** drawn from a generator per station, deterministic at any thread count (docs/sensors/v2x.md).
*/
#ifndef SENSIM_V2X_H
#define SENSIM_V2X_H

#include <sensim/abi.h>

/* The largest payload of one message, bytes. */
#define SN_V2X_PAYLOAD_MAX 65536u

/*
** A station's radio: sensor.other.v2x_custom's attributes of the same names, with the same
** ranges and CARLA's defaults (SN_V2X_PARAMS_INIT). scenario 0 highway, 1 rural, 2 urban;
** model 0 WINNER+, 1 geometric. Only stations on the same channel hear each other.
*/
typedef struct sn_v2x_params {
    uint32_t struct_size;        /* sizeof(sn_v2x_params) when the plugin was built */
    double transmit_power;       /* dBm, [-100, 100] */
    double receiver_sensitivity; /* dBm, [-300, 100] */
    double frequency_ghz;        /* [0.1, 100] */
    double combined_antenna_gain; /* dBi, [-100, 100] */
    double d_ref;                /* m, [0.001, 10000] */
    double path_loss_exponent;   /* [0.1, 10] */
    double filter_distance;      /* m, [0.001, 100000]: nothing heard at or beyond */
    uint32_t scenario;           /* 0 highway, 1 rural, 2 urban */
    uint32_t path_loss_model;    /* 0 winner, 1 geometric */
    bool use_etsi_fading;
    double custom_fading_stddev; /* dB, [0, 100], when use_etsi_fading is false */
    const char *channel_id;      /* NULL: "Default"; copied at join */
} sn_v2x_params;

#define SN_V2X_PARAMS_INIT \
    {sizeof(sn_v2x_params), 21.5, -99.0, 5.9, 10.0, 1.0, 2.7, 500.0, 0, 0, true, 0.0, NULL}

/* One message that reached a station: host->v2x_received's records, at out[0].struct_size strides. */
typedef struct sn_v2x_message {
    uint32_t struct_size;  /* set out[0]'s to sizeof(sn_v2x_message) before the call */
    uint32_t sender_id;    /* the sending sensor's actor id */
    uint32_t station_id;   /* the sender's station: its parent actor (the sensor itself when free) */
    uint8_t los;           /* 0 line of sight, 1 blocked by a building (NLOSb), 2 by vehicles (NLOSv) */
    double power;          /* received power, dBm (at or above the receiver's sensitivity) */
    uint64_t frame;        /* the frame it was sent in */
    int64_t time_ns;       /* the simulated time it was sent at */
    const void *payload;   /* its bytes, owned by the host: valid until this callback returns */
    uint32_t size;         /* bytes of payload */
} sn_v2x_message;

/*
** What the engine calls in the class that carries the medium (sn_sensor_class.v2x_medium; the
** v2x plugin's sensor.other.v2x_custom). Plugins that only use the medium never see it. Every
** function runs on the class state, from the engine's thread, inside a callback of the plugin
** that called the host. `err` receives a sentence (at most err_cap bytes) on failure.
*/
typedef struct sn_v2x_medium_ops {
    sn_abi_header hdr;
    /* A station for sensor `sensor_id` (named `name`, mounted on `parent_id`, 0 when free),
    ** its fading drawn from a generator seeded with `seed`. SN_E_RANGE for a setting outside
    ** its range. */
    sn_status (*join)(void *state, uint32_t sensor_id, uint32_t parent_id, const char *name, uint64_t seed,
                      const sn_v2x_params *p, void **station, char *err, size_t err_cap);
    /* Leaves the medium; frees the station. */
    void (*leave)(void *state, void *station);
    /* Queues a payload (copied) for the station's next propagation, at the end of this frame's
    ** POST phase. */
    sn_status (*send)(void *state, void *station, const void *payload, uint32_t size, char *err, size_t err_cap);
    /* What reached the station at the last propagation: messages [0, *n_found), the first
    ** min(cap, *n_found) written to out at out[0].struct_size strides. */
    sn_status (*received)(void *state, void *station, sn_v2x_message *out, uint32_t cap, uint32_t *n_found);
} sn_v2x_medium_ops;

#endif
