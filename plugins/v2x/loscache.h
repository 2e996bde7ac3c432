/*
** loscache.h — the line of sight of last tick's links, kept for a tick in which nothing moved.
**
** A link's class (LOS, NLOSb, NLOSv) and knife-edge loss follow from the segment between its
** antennas and the world's shapes alone. When every actor stands where it stood (transform,
** box, wheel angle, velocities the same bits) and every station's antenna and wavelength are
** the same, and the same senders are heard by the same receivers, last tick's answers are this
** tick's: they are copied instead of tracing some 245 000 rays (1 000 parked cars sending,
** antennas below their roofs). A parked car's model is the same bits but for its wheels' roll,
** which follows the distance it travels: a body at rest that still carries a velocity of a few
** 1e-16 m/s rolls its wheels that much each second, so the answers are kept only while every
** actor's speed since they were traced, times the time since, stays under 1 um (the wheels then
** turned by less than 1 um at their rim): within that, the answers are those of a world whose
** models stand where they were. `los_cache: false` on any station of the class traces every tick.
*/
#ifndef SN_V2X_LOSCACHE_H
#define SN_V2X_LOSCACHE_H

#include <sensim/host.h>

#include <stdbool.h>
#include <stdint.h>

struct sn_v2x_medium;

/* One actor of the world as the cache compares it. */
typedef struct sn_v2x_pose {
    uint32_t id;
    uint32_t kind;
    double v[21]; /* transform, box, velocities, wheel angle */
} sn_v2x_pose;

typedef struct sn_v2x_loscache {
    sn_v2x_pose *poses;      /* last tick's world */
    uint32_t n_poses, cap_poses;
    sn_v2x_pose *now;        /* this tick's, then swapped into poses */
    uint32_t cap_now;
    uint64_t frame;          /* the frame of poses (a tick without transmissions breaks the chain) */
    bool still;              /* this tick's world is last tick's */
    double speed_now;        /* m/s: this tick's highest actor speed */
    /* The links traced at t0, while they hold: the world unchanged every tick since, its
    ** highest speed since then `speed`. */
    bool valid;
    double speed, t0;
    struct sn_v2x_station_key *keys; /* per station in order: what its pairs and links follow from */
    uint32_t n_st, cap_keys;
    const void **st;         /* the stations, in order */
    uint32_t cap_st;
    bool pairs_stored;       /* keys, st, senders and r_start hold a tick's stations and pairs */
    bool pairs_current;      /* the medium's pairs are those (its find_pairs did not run since) */
    uint32_t n_pairs, cap_pairs;
    uint32_t *senders, *r_start;
    uint32_t cap_r_start;
    uint8_t *los;
    double *ke;
    uint64_t reused;         /* ticks answered from the cache (for tests and benchmarks) */
} sn_v2x_loscache;

/* Whether the stations are last tick's, placed where they were, sending as they did, with the
** same radios: then last tick's pairs (still in the medium) are this tick's, and find_pairs
** need not run. */
bool sn_v2x_loscache_same_pairs(const struct sn_v2x_medium *m);
/* Whether this tick's pairs have last tick's answers: then m->los and m->ke hold them. */
bool sn_v2x_loscache_get(struct sn_v2x_medium *m);
/* Keeps this tick's answers (traced just now) for the next, when the world stood still since
** the last tick (a moving world is not copied every tick for nothing); out of memory simply
** keeps none. */
void sn_v2x_loscache_put(struct sn_v2x_medium *m);
void sn_v2x_loscache_free(sn_v2x_loscache *c);

#endif
