/* render_share.c — one geometry render for cameras that ask for the same picture (render_share.h). */
#include "render_share.h"

#include "../core/lend.h"

#include <stdlib.h>
#include <string.h>

enum { P_DEPTH = 1, P_TAG = 2, P_INST = 4 };
#define GROUPS 8
#define FORGET 2 /* phases with renders but no match after which a group is no longer kept for */

/* A camera's size, lens and clips: what cameras sharing a mount have in common every frame. */
typedef struct lens_key {
    uint32_t width, height;
    double fov, near_clip, far_clip;
} lens_key;

typedef struct group {
    lens_key lens;
    unsigned later;      /* the planes asked by requests that matched the one before: what copies serve */
    uint64_t last_match; /* the phase of its last matched request */
    bool used;
} group;

struct sn_render_share {
    uint64_t phase, hits; /* phase counts the phases that rendered (those without renders age nothing) */
    uint64_t copied;      /* bytes copied out of kept planes (tests) */
    bool rendered;        /* this phase asked for a render */
    /* the phase's last geometry request, and whether its planes are kept here */
    bool have_last, kept;
    sn_camera last;
    double last_alpha;
    unsigned kept_planes;
    /* the kept planes: a block lent from the phase's first keeping render to its end (lend.h), so
    ** that engines stepped in turn write into one, not one each */
    sn_lent *lent;
    float *depth;
    uint8_t *tag;
    uint32_t *inst;
    group groups[GROUPS];
};

static lens_key lens_of(const sn_camera *c) { return (lens_key){c->width, c->height, c->fov, c->near_clip, c->far_clip}; }

static bool same_lens(lens_key a, lens_key b)
{
    return a.width == b.width && a.height == b.height && a.fov == b.fov && a.near_clip == b.near_clip &&
           a.far_clip == b.far_clip;
}

/* The same picture: every field a render reads, compared exactly (NaN never matches). */
static bool same_camera(const sn_camera *a, const sn_camera *b)
{
    const sn_transform *s = &a->transform, *t = &b->transform;
    return same_lens(lens_of(a), lens_of(b)) && s->location.x == t->location.x && s->location.y == t->location.y &&
           s->location.z == t->location.z && s->rotation.pitch == t->rotation.pitch &&
           s->rotation.yaw == t->rotation.yaw && s->rotation.roll == t->rotation.roll;
}

static group *find_group(sn_render_share *s, lens_key k)
{
    for (int i = 0; i < GROUPS; i++)
        if (s->groups[i].used && same_lens(s->groups[i].lens, k))
            return &s->groups[i];
    return NULL;
}

/* Notes that a request for lens k matched the one before: its planes (`later`) join its group's,
** what the group's first render keeps from the next phase on for the copies. */
static void learn(sn_render_share *s, lens_key k, unsigned later)
{
    group *g = find_group(s, k);
    for (int i = 0; !g && i < GROUPS; i++) /* a free slot, else the longest unmatched */
        if (!s->groups[i].used || s->phase - s->groups[i].last_match > FORGET)
            g = &s->groups[i], *g = (group){.lens = k, .used = true};
    if (g)
        g->later |= later, g->last_match = s->phase;
}

static unsigned planes_of(const sn_image *o)
{
    return (o->depth ? P_DEPTH : 0) | (o->tag ? P_TAG : 0) | (o->instance ? P_INST : 0);
}

/* out's planes that the kept render holds (a plane the keeping render drew straight into its own
** out is not kept: `planes` says which are) */
static void copy_out(sn_render_share *s, const sn_image *out, size_t px, unsigned planes)
{
    if (out->depth && (planes & P_DEPTH))
        memcpy(out->depth, s->depth, px * sizeof *s->depth), s->copied += px * sizeof *s->depth;
    if (out->tag && (planes & P_TAG))
        memcpy(out->tag, s->tag, px), s->copied += px;
    if (out->instance && (planes & P_INST))
        memcpy(out->instance, s->inst, px * sizeof *s->inst), s->copied += px * sizeof *s->inst;
}

/* Room for px pixels of every plane, lent to the phase's end (false when out of memory: the
** caller renders as usual). Another keeping render in the same phase gives its block back first
** and takes one of its own size (the same block when that is big enough). */
static bool room(sn_render_share *s, size_t px)
{
    const size_t at_tag = (px * sizeof *s->depth + 63) / 64 * 64, at_inst = at_tag + (px + 63) / 64 * 64;
    if (s->lent)
        sn_lend_give(s->lent);
    void *m;
    if (!(s->lent = sn_lend_take(at_inst + px * sizeof *s->inst, &m))) {
        s->depth = NULL, s->tag = NULL, s->inst = NULL;
        return false;
    }
    s->depth = m, s->tag = (uint8_t *)m + at_tag, s->inst = (uint32_t *)(void *)((uint8_t *)m + at_inst);
    return true;
}

sn_status sn_render_shared(sn_render_share **share, sn_renderer *r, const sn_world *w, double alpha,
                           const sn_lighting *light, const sn_camera *cam, const sn_image *out, sn_error *err)
{
    /* colour is never shared; without colour a render is never anti-aliased (render.c prepare) */
    if (out->bgra || (!*share && !(*share = calloc(1, sizeof **share))))
        return sn_render(r, w, alpha, light, cam, out, err);
    sn_render_share *s = *share;
    s->rendered = true;
    const unsigned want = planes_of(out);
    const size_t px = (size_t)cam->width * cam->height;
    const bool again = s->have_last && s->last_alpha == alpha && same_camera(&s->last, cam);
    if (again) {
        learn(s, lens_of(cam), want);
        if (s->kept && (want & ~s->kept_planes) == 0) {
            copy_out(s, out, px, want);
            s->hits++;
            return SN_OK;
        }
    }
    const group *g = find_group(s, lens_of(cam));
    /* kept: what the copies after this render will ask for. A plane only this request asks for is
    ** drawn straight into its own out, not into the lent block and copied (vec62: one plane fewer
    ** in the cache a render; the bytes are the renderer's either way) */
    const unsigned keep = g && s->phase - g->last_match <= FORGET ? g->later : 0;
    s->have_last = false, s->kept = false;
    sn_status st;
    if (keep && room(s, px)) {
        const unsigned direct = want & ~keep;
        sn_image mine = {sizeof mine, keep & P_DEPTH ? s->depth : direct & P_DEPTH ? out->depth : NULL, NULL,
                         keep & P_TAG ? s->tag : direct & P_TAG ? out->tag : NULL,
                         keep & P_INST ? s->inst : direct & P_INST ? out->instance : NULL, 1};
        if ((st = sn_render(r, w, alpha, light, cam, &mine, err)))
            return st;
        copy_out(s, out, px, want & keep);
        s->kept = true, s->kept_planes = keep;
    } else if ((st = sn_render(r, w, alpha, light, cam, out, err))) {
        return st;
    }
    s->have_last = true, s->last = *cam, s->last_alpha = alpha;
    return SN_OK;
}

void sn_render_share_phase(sn_render_share *s)
{
    if (s) {
        s->phase += s->rendered, s->rendered = false, s->have_last = false, s->kept = false;
        sn_lend_give(s->lent); /* nothing kept is read after the phase */
        s->lent = NULL, s->depth = NULL, s->tag = NULL, s->inst = NULL;
    }
}

uint64_t sn_render_share_hits(const sn_render_share *s) { return s ? s->hits : 0; }
uint64_t sn_render_share_copied(const sn_render_share *s) { return s ? s->copied : 0; }

void sn_render_share_free(sn_render_share *s)
{
    if (!s)
        return;
    sn_lend_give(s->lent);
    free(s);
}
