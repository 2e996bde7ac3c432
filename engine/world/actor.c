/* actor.c — the actor registry and read-only actor queries. */
#include "world.h"

#include "../core/util.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const tag_names[SN_TAG_COUNT] = {
    "Unlabeled", "Roads", "SideWalk", "Building", "Wall", "Fence", "Pole", "TrafficLight",
    "TrafficSign", "Vegetation", "Terrain", "Sky", "Pedestrian", "Rider", "Car", "Truck", "Bus",
    "Train", "Motorcycle", "Bicycle", "Static", "Dynamic", "Other", "Water", "RoadLine", "Ground",
    "Bridge", "RailTrack", "GuardRail",
};

const char *sn_tag_name(uint8_t tag) { return tag < SN_TAG_COUNT ? tag_names[tag] : "?"; }

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
    for (uint8_t i = 0; i < SN_TAG_COUNT; i++) {
        /* Accept the singular too: "wall" for Wall, "roads"/"road" for Roads, "building(s)". */
        const char *n = tag_names[i];
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

sn_actor *sn_world_add(sn_world *w, sn_actor_kind kind)
{
    if (!sn_grow((void **)&w->actors, &w->cap_actors, w->n_actors + 1, sizeof *w->actors))
        return NULL;
    sn_actor *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->id = ++w->next_id;
    a->kind = kind;
    w->actors[w->n_actors++] = a;
    return a;
}

static size_t find_index(const sn_world *w, uint32_t id, bool *found)
{
    size_t lo = 0, hi = w->n_actors;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (w->actors[mid]->id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
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
    for (size_t i = 0; i < w->n_actors; i++)
        if (strcmp(w->actors[i]->name, name) == 0)
            return w->actors[i];
    return NULL;
}

void sn_world_remove(sn_world *w, uint32_t id)
{
    bool found;
    size_t i = find_index(w, id, &found);
    if (!found)
        return;
    sn_actor *a = w->actors[i];
    for (size_t k = 0; k < w->n_planes; k++) {
        if (w->planes[k] == a) {
            memmove(&w->planes[k], &w->planes[k + 1], (w->n_planes - k - 1) * sizeof *w->planes);
            w->n_planes--;
            break;
        }
    }
    if (a->geom)
        dGeomDestroy(a->geom);
    if (a->body)
        dBodyDestroy(a->body);
    free(a->name);
    free(a->role_name);
    free(a->ap.route);
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

static sn_transform body_transform(dBodyID b)
{
    const dReal *p = dBodyGetPosition(b), *r = dBodyGetRotation(b);
    sn_mat3 m = {{r[0], r[1], r[2], r[4], r[5], r[6], r[8], r[9], r[10]}};
    return (sn_transform){{p[0], p[1], p[2]}, sn_mat3_to_rotation(&m)};
}

sn_transform sn_actor_world_transform(const sn_world *w, const sn_actor *a)
{
    if (a->body)
        return body_transform(a->body);
    if (a->parent) {
        const sn_actor *p = sn_world_find(w, a->parent);
        if (p) {
            sn_transform pt = sn_actor_world_transform(w, p);
            return sn_transform_compose(&pt, &a->rel);
        }
    }
    return a->rel;
}

sn_vec3 sn_actor_velocity(const sn_actor *a)
{
    if (!a->body)
        return sn_v3(0, 0, 0);
    const dReal *v = dBodyGetLinearVel(a->body);
    return sn_v3(v[0], v[1], v[2]);
}

/* The body that carries an actor: its own, or its (attached) ancestor's. */
static const sn_actor *carrier(const sn_world *w, const sn_actor *a)
{
    for (int guard = 0; a && guard < 64; guard++) {
        if (a->body || !a->parent)
            return a;
        a = sn_world_find(w, a->parent);
    }
    return a;
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
    info.bounding_box = a->bbox;
    info.transform = sn_actor_world_transform(w, a);
    const sn_actor *c = carrier(w, a);
    if (c && c->body) {
        /* An attached actor moves with its carrier: v = v_c + w x r. */
        const dReal *wv = dBodyGetAngularVel(c->body);
        sn_vec3 om = sn_v3(wv[0], wv[1], wv[2]);
        sn_vec3 r = sn_v3_sub(info.transform.location, sn_actor_world_transform(w, c).location);
        info.velocity = sn_v3_add(sn_actor_velocity(c), sn_v3_cross(om, r));
        info.angular_velocity = sn_v3_scale(om, 1.0 / SN_DEG);
        info.acceleration = c->acceleration;
    }
    if (a->kind == SN_ACTOR_VEHICLE)
        info.control = a->control;
    size_t n = out->struct_size && out->struct_size < sizeof info ? out->struct_size : sizeof info;
    memcpy(out, &info, n);
}
