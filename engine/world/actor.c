/* actor.c — the actor registry and read-only actor queries. */
#include "world.h"

#include "../core/util.h"

#include <stdlib.h>
#include <ctype.h>
#include <string.h>
#include <strings.h>
#include <sensim/search.h>

static const char *const tag_names[SN_TAG_COUNT] = {
    "Unlabeled", "Roads", "SideWalk", "Building", "Wall", "Fence", "Pole", "TrafficLight",
    "TrafficSign", "Vegetation", "Terrain", "Sky", "Pedestrian", "Rider", "Car", "Truck", "Bus",
    "Train", "Motorcycle", "Bicycle", "Static", "Dynamic", "Other", "Water", "RoadLine", "Ground",
    "Bridge", "RailTrack", "GuardRail",
};

bool sn_tag_parse(const char *text, uint8_t *out)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (end != text && !*end) {
        if (v < 0 || v >= SN_TAG_COUNT)
            return false;
        *out = (uint8_t)v;
        return true;
    }
    const int first = tolower((unsigned char)text[0]);
    for (uint8_t i = 0; i < SN_TAG_COUNT; i++) {
        /* Accept the singular too: "wall" for Wall, "roads"/"road" for Roads, "building(s)". */
        const char *n = tag_names[i];
        if (tolower((unsigned char)n[0]) != first) /* each way below needs it (every spawn asks) */
            continue;
        size_t ln = strlen(n), lt = strlen(text);
        if (sn_streq_nocase(n, text))
            goto found;
        if (ln == lt + 1 && (n[ln - 1] == 's') && strncasecmp(n, text, lt) == 0)
            goto found;
        if (lt == ln + 1 && (text[lt - 1] == 's' || text[lt - 1] == 'S') && strncasecmp(n, text, ln) == 0)
            goto found;
        continue;
    found:
        *out = i;
        return true;
    }
    return false;
}

const sn_actor_phys sn_actor_no_phys = {.reflectivity = -1};

sn_actor *sn_world_add(sn_world *w, sn_actor_kind kind, uint32_t id)
{
    if (id && id <= w->next_id)
        return NULL;
    if (!id && w->next_id == UINT32_MAX)
        return NULL;
    if (!sn_grow((void **)&w->actors, &w->cap_actors, w->n_actors + 1, sizeof *w->actors))
        return NULL;
    /* Every kind but sensors has its shape part right after the record, and vehicles and
    ** walkers their motion part after that, in one block. */
    const bool moves = kind == SN_ACTOR_VEHICLE || kind == SN_ACTOR_WALKER, sensor = kind == SN_ACTOR_SENSOR;
    sn_actor *a = calloc(1, sizeof *a + (sensor ? 0 : sizeof *a->ph) + (moves ? sizeof *a->mv : 0));
    if (!a)
        return NULL;
    static const sn_vehicle_params no_params; /* a vehicle's until spawn sets its own */
    if (sensor) {
        a->ph = (sn_actor_phys *)&sn_actor_no_phys; /* read-only: written, it faults */
    } else {
        a->ph = (sn_actor_phys *)(void *)(a + 1);
        a->ph->reflectivity = -1; /* the semantic tag's until spawn sets it */
    }
    if (moves) {
        a->mv = (sn_actor_motion *)(void *)(a->ph + 1);
        if (kind == SN_ACTOR_VEHICLE) /* walkers have their control in its room */
            a->mv->vp = &no_params;
    }
    a->id = w->next_id = id ? id : w->next_id + 1;
    a->kind = kind;
    a->st.rot = a->st.prev_rot = sn_quat_identity();
    w->actors[w->n_actors++] = a;
    w->gen++;
    w->static_gen += kind == SN_ACTOR_STATIC;
    return a;
}

/* Every actor's empty name and role name: most actors have no role name and many no name,
** and a copy of "" is a 32-byte allocation. Never written, never freed. */
static char empty[1];

char *sn_actor_strdup(const char *s)
{
    return !s || !s[0] ? empty : sn_strdup(s);
}

void sn_actor_strfree(char *s)
{
    if (s != empty)
        free(s);
}

sn_autopilot *sn_actor_autopilot(sn_actor *a)
{
    if (!a->mv->ap)
        a->mv->ap = calloc(1, sizeof *a->mv->ap);
    return a->mv->ap;
}

bool sn_world_set_name_kept(sn_world *w, sn_actor *a, const char *name, bool kept)
{
    char *copy = kept && name ? (char *)name : sn_actor_strdup(name);
    if (!copy)
        return false;
    if (a->name && a->name[0] && sn_strmap_get(&w->names, a->name) == a)
        sn_strmap_del(&w->names, a->name);
    if (!a->name_kept)
        sn_actor_strfree(a->name);
    a->name = copy;
    a->name_kept = kept && name;
    return !copy[0] || sn_strmap_put(&w->names, copy, a);
}

typedef struct id_probe {
    const sn_world *w;
    uint32_t id;
} id_probe;

static bool actor_before(const void *ctx, size_t i)
{
    const id_probe *p = ctx;
    return p->w->actors[i]->id < p->id;
}

static size_t find_index(const sn_world *w, uint32_t id, bool *found)
{
    /* Ids only grow and are handed out in turn, so id sits at index id - first id or before
    ** it (removals shift it down): where nothing was removed, no search. */
    size_t lo = 0, hi = w->n_actors;
    if (hi && id >= w->actors[0]->id) {
        size_t guess = id - w->actors[0]->id;
        if (guess < hi && w->actors[guess]->id == id) {
            *found = true;
            return guess;
        }
        hi = guess < hi ? guess : hi;
    }
    lo = sn_search_first(lo, hi, &(id_probe){w, id}, actor_before);
    *found = lo < w->n_actors && w->actors[lo]->id == id;
    return lo;
}

sn_actor *sn_world_find(const sn_world *w, uint32_t id)
{
    bool found;
    size_t i = find_index(w, id, &found);
    return found ? w->actors[i] : NULL;
}

sn_actor *sn_world_find_name(const sn_world *w, const char *name)
{
    return name && name[0] ? sn_strmap_get(&w->names, name) : NULL;
}

void sn_world_remove(sn_world *w, uint32_t id)
{
    bool found;
    size_t i = find_index(w, id, &found);
    if (!found)
        return;
    sn_actor *a = w->actors[i];
    w->gen++;
    w->motion_gen++; /* the overlap grid holds pointers to bodies */
    w->static_gen += a->kind == SN_ACTOR_STATIC;
    for (size_t k = 0; k < w->n_planes; k++) {
        if (w->planes[k] == a) {
            memmove(&w->planes[k], &w->planes[k + 1], (w->n_planes - k - 1) * sizeof *w->planes);
            w->n_planes--;
            break;
        }
    }
    if (a->name && a->name[0] && sn_strmap_get(&w->names, a->name) == a)
        sn_strmap_del(&w->names, a->name);
    for (size_t k = 0; a->ph->body && k < w->n_bodies; k++) {
        if (w->bodies[k] == a) {
            memmove(&w->bodies[k], &w->bodies[k + 1], (w->n_bodies - k - 1) * sizeof *w->bodies);
            w->n_bodies--;
            break;
        }
    }
    w->n_riders -= a->rides;
    if (a->ph->geom && !w->poisoned)
        dGeomDestroy(a->ph->geom);
    if (a->ph->crash && !w->poisoned)
        dGeomDestroy(a->ph->crash);
    if (a->ph->body && !w->poisoned)
        dBodyDestroy(a->ph->body);
    if (!a->name_kept)
        sn_actor_strfree(a->name);
    sn_actor_strfree(a->role_name);
    if (a->mv) {
        if (a->mv->ap) {
            free(a->mv->ap->route);
            sn_mapdrive_free(a->mv->ap->map);
            free(a->mv->ap);
        }
        if (a->kind == SN_ACTOR_VEHICLE)
            free(a->mv->wheel_tri);
        else if (a->kind == SN_ACTOR_WALKER)
            free(a->mv->ground);
        free(a->mv->kin);
    }
    if (a->values_shared)
        sn_vshare_drop(&w->vshare, a->values, a->n_values);
    else
        free(a->values);
    free(a);
    memmove(&w->actors[i], &w->actors[i + 1], (w->n_actors - i - 1) * sizeof *w->actors);
    w->n_actors--;
}

bool sn_actor_is_descendant(const sn_world *w, uint32_t id, uint32_t ancestor)
{
    for (int guard = 0; id && guard < 64; guard++) {
        if (id == ancestor)
            return true;
        const sn_actor *a = sn_world_find(w, id);
        id = a ? a->parent : 0;
    }
    return false;
}

sn_transform sn_actor_world_transform(const sn_world *w, const sn_actor *a)
{
    (void)w;
    return (sn_transform){a->st.pos, sn_quat_to_rotation(a->st.rot)};
}

sn_vec3 sn_actor_velocity(const sn_actor *a) { return a->st.vel; }

void sn_actor_pose_at(const sn_world *w, const sn_actor *a, double alpha, sn_vec3 *pos, sn_quat *rot)
{
    const sn_actor *p = a->parent ? sn_world_find(w, a->parent) : NULL;
    if (p && !a->ph->body) {
        /* Rigidly mounted: the parent's interpolated pose composed with the mount. */
        sn_vec3 pp;
        sn_quat pr;
        sn_actor_pose_at(w, p, alpha, &pp, &pr);
        sn_quat rel = sn_quat_from_rotation(a->rel.rotation);
        *pos = sn_v3_add(pp, sn_quat_apply(pr, a->rel.location));
        *rot = sn_quat_mul(pr, rel);
        return;
    }
    if (alpha >= 1) {
        *pos = a->st.pos;
        *rot = a->st.rot;
        return;
    }
    *pos = sn_v3_lerp(a->st.prev_pos, a->st.pos, alpha);
    *rot = sn_quat_slerp(a->st.prev_rot, a->st.rot, alpha);
}

void sn_world_update_attached(sn_world *w)
{
    /* A parent's id is below its children's (children spawn after their parent), so one
    ** pass in id order sees every parent updated before its children. */
    w->gen++;
    for (size_t i = 0; i < w->n_actors; i++)
        sn_actor_update_attached(w, w->actors[i]);
}

/* The mount's rotation as a quaternion, converted again only when it changed: every attached
** actor needs it every frame, and the conversion is three sincos. */
void sn_actor_set_rel(sn_actor *a, const sn_transform *rel)
{
    a->rel = *rel;
    a->rel_q_ok = false;
}

static sn_quat rel_quat(sn_actor *a)
{
    if (!a->rel_q_ok) {
        a->rel_q = sn_quat_from_rotation(a->rel.rotation);
        a->rel_q_ok = true;
    }
    return a->rel_q;
}

void sn_actor_update_attached(const sn_world *w, sn_actor *a)
{
    if (!a->parent || a->ph->body)
        return;
    const sn_actor *p = sn_world_find(w, a->parent);
    if (!p)
        return;
    sn_quat rel = rel_quat(a);
    sn_vec3 r = sn_quat_apply(p->st.rot, a->rel.location);
    sn_vec3 pr = sn_quat_apply(p->st.prev_rot, a->rel.location);
    a->st.pos = sn_v3_add(p->st.pos, r);
    a->st.rot = sn_quat_mul(p->st.rot, rel);
    a->st.prev_pos = sn_v3_add(p->st.prev_pos, pr);
    a->st.prev_rot = sn_quat_mul(p->st.prev_rot, rel);
    /* It moves with its parent: v = v_p + w x r. */
    a->st.vel = sn_v3_add(p->st.vel, sn_v3_cross(p->st.ang_vel, r));
    a->st.ang_vel = p->st.ang_vel;
    a->st.acc = p->st.acc;
    a->st.prev_vel = p->st.prev_vel;
    a->st.ang_acc = p->st.ang_acc;
    a->st.prev_ang_vel = p->st.prev_ang_vel;
}

void sn_actor_fill_info(const sn_world *w, const sn_actor *a, sn_actor_info *out)
{
    sn_actor_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = out->struct_size;
    info.id = a->id;
    info.parent_id = a->parent;
    info.kind = a->kind;
    info.type_id = a->type_id;
    info.name = a->name;
    info.role_name = a->role_name;
    info.semantic_tag = a->tag;
    info.bounding_box = a->ph->bbox;
    info.transform = sn_actor_world_transform(w, a);
    info.velocity = a->st.vel;
    info.angular_velocity = sn_v3_scale(a->st.ang_vel, 1.0 / SN_DEG);
    info.acceleration = a->st.acc;
    if (a->kind == SN_ACTOR_VEHICLE) {
        info.control = a->ph->control;
        info.wheel_steer_angle = a->ph->steer_angle / SN_DEG;
        info.light_state = a->ph->light_state;
    }
    size_t n = out->struct_size && out->struct_size < sizeof info ? out->struct_size : sizeof info;
    memcpy(out, &info, n);
}
