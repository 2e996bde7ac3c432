/* format.h — the constants of the sensim recording format (FORMAT.md is the specification). */
#ifndef SN_RECORDER_FORMAT_H
#define SN_RECORDER_FORMAT_H

#define REC_MAGIC "SNREC\0\r\n"      /* 8 bytes at offset 0 */
#define REC_MAGIC_LEN 8
#define REC_VERSION_MAJOR 1          /* a reader refuses another major */
#define REC_VERSION_MINOR 4          /* new packets bump the minor; old readers skip them */
#define REC_FRAME_TAG 0x4d524653u    /* "SFRM" little-endian: starts every frame */
#define REC_INDEX_TAG 0x58444953u    /* "SIDX" */
#define REC_TRAILER_MAGIC "SNRIDX\0\n" /* last 8 bytes of a closed file */
#define REC_FRAME_HEAD 12            /* tag, payload length, CRC-32 of the payload */
#define REC_INDEX_ENTRY 33           /* frame u64, elapsed f64, duration f64, offset u64, flags u8 */
#define REC_MAX_FRAME (1u << 30)     /* a frame larger than 1 GiB is damage, not data */
#define REC_KEY_INTERVAL 32          /* a key frame (no prediction from earlier frames) every N */

/* Packet ids: append-only. A reader skips ids it does not know by their length. */
enum rec_packet {
    REC_P_FRAME_START = 0, /* varint frame, f64 elapsed, f64 duration, u8 flags: always first */
    REC_P_ACTOR_ADD = 1,
    REC_P_ACTOR_DEL = 2,
    REC_P_PARENT = 3,
    REC_P_COLLISION = 4,
    REC_P_POSITION = 5,    /* vehicles and walkers: channel of x y z pitch yaw roll */
    REC_P_SENSOR_POSE = 6, /* attached sensors, world pose: same coding */
    REC_P_CONTROL = 7,     /* vehicles whose control changed (all of them on key frames) */
    REC_P_WALKER = 8,      /* walkers whose speed changed (all on key frames) */
    REC_P_KINEMATICS = 9,  /* additional_data: channel of velocity and angular velocity */
    REC_P_BBOX = 10,       /* additional_data: boxes that changed (all on key frames) */
    REC_P_LIGHT = 11,      /* traffic lights whose state changed (all on key frames), version 1.1 */
    REC_P_WEATHER = 12,    /* the world's weather when it changed (and on key frames), version 1.2 */
    REC_P_VEHICLE = 13     /* vehicles whose wheel angle or lights changed (all on key frames), version 1.3 */
};

/* FrameStart flags. */
#define REC_F_KEY 1u    /* channels restart: nothing is predicted from earlier frames */
#define REC_F_EVENTS 2u /* the frame adds, destroys or re-parents actors (seek reads only these) */

/* Header flags. */
#define REC_H_ADDITIONAL 1u

#endif
