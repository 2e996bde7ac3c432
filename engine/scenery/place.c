/* place.c — where scenery goes (docs/scenery.md has the rules and their numbers).
**
** Passes in a fixed order, each over the roads in file order: the map's own objects, signs from
** signals, pillars under elevated roads, guard rails on motorways, street lights, buildings,
** buildings filling the blocks, then trees and bushes in what is left. A solid is placed only where its whole footprint,
** widened by SN_SCENERY_MARGIN, lies off every blocked lane (sn_scenery_blocked_types) and
** off every footprint placed before it (and the scene's static boxes). Paint (stop lines,
** zebras) lies on the lanes by definition. Random draws come from one stream per road and
** pass (seed, pass, road index), so one road's draws never shift another's. */
#include "placer.h"

#include <stdlib.h>
#include <string.h>

const sn_road_category sn_scenery_categories[SN_SC_N] = {
    [SN_SC_BUILDING] = {SN_TAG_BUILDING, SN_ROAD_KERB_FACE, {170, 160, 145}},
    [SN_SC_WINDOWS] = {SN_TAG_BUILDING, SN_ROAD_MARK, {46, 58, 74}},
    [SN_SC_TRUNK] = {SN_TAG_VEGETATION, SN_ROAD_KERB_FACE, {92, 66, 44}},
    [SN_SC_CROWN] = {SN_TAG_VEGETATION, SN_ROAD_MARK, {58, 104, 48}},
    [SN_SC_BUSH] = {SN_TAG_VEGETATION, SN_ROAD_MARK, {66, 112, 52}},
    [SN_SC_POLE] = {SN_TAG_POLE, SN_ROAD_KERB_FACE, {120, 122, 126}},
    [SN_SC_LAMP] = {SN_TAG_POLE, SN_ROAD_MARK, {210, 210, 190}},
    [SN_SC_SIGN_POLE] = {SN_TAG_POLE, SN_ROAD_KERB_FACE, {150, 150, 150}},
    [SN_SC_SIGN_STOP] = {SN_TAG_TRAFFIC_SIGN, SN_ROAD_MARK, {196, 30, 36}},
    [SN_SC_SIGN_YIELD] = {SN_TAG_TRAFFIC_SIGN, SN_ROAD_MARK, {236, 236, 236}},
    [SN_SC_SIGN_SPEED] = {SN_TAG_TRAFFIC_SIGN, SN_ROAD_MARK, {240, 240, 240}},
    [SN_SC_STOP_LINE] = {SN_TAG_ROAD_LINE, SN_ROAD_MARK, {236, 236, 236}},
    [SN_SC_ZEBRA] = {SN_TAG_ROAD_LINE, SN_ROAD_MARK, {236, 236, 236}},
    [SN_SC_GUARD_RAIL] = {SN_TAG_GUARD_RAIL, SN_ROAD_KERB_FACE, {186, 188, 190}},
    [SN_SC_PILLAR] = {SN_TAG_BRIDGE, SN_ROAD_KERB_FACE, {150, 146, 140}},
    [SN_SC_FENCE] = {SN_TAG_FENCE, SN_ROAD_KERB_FACE, {140, 120, 100}},
    [SN_SC_WALL] = {SN_TAG_WALL, SN_ROAD_KERB_FACE, {168, 150, 128}},
    [SN_SC_FENCE_POST] = {SN_TAG_FENCE, SN_ROAD_KERB_FACE, {96, 98, 100}},
    [SN_SC_SHELTER] = {SN_TAG_STATIC, SN_ROAD_KERB_FACE, {96, 104, 112}},
    [SN_SC_SHELTER_PANEL] = {SN_TAG_STATIC, SN_ROAD_KERB_FACE, {150, 172, 186}},
    [SN_SC_BENCH] = {SN_TAG_STATIC, SN_ROAD_KERB_FACE, {132, 96, 62}},
    [SN_SC_BIN] = {SN_TAG_DYNAMIC, SN_ROAD_KERB_FACE, {44, 72, 54}},
    [SN_SC_GRASS] = {SN_TAG_TERRAIN, SN_ROAD_MARK, {88, 124, 60}},
    [SN_SC_DIRT] = {SN_TAG_GROUND, SN_ROAD_MARK, {122, 104, 84}},
};
const char *const sn_scenery_type[SN_SC_N] = {
    "scenery.building", "scenery.building", "scenery.tree",       "scenery.tree",       "scenery.bush",
    "scenery.street_light", "scenery.street_light", "scenery.sign", "scenery.sign",     "scenery.sign",
    "scenery.sign", "scenery.stop_line", "scenery.crosswalk", "scenery.guard_rail", "scenery.pillar",
    "scenery.fence", "scenery.wall", "scenery.fence", "scenery.bus_stop", "scenery.bus_stop", "scenery.bench",
    "scenery.bin", "scenery.grass", "scenery.ground",
};

const sn_road_category *sn_chunk_category(uint32_t c)
{
    if (c < SN_ROAD_N_CATEGORIES)
        return &sn_road_categories[c];
    return c < SN_CHUNK_N_CATEGORIES ? &sn_scenery_categories[c - SN_ROAD_N_CATEGORIES] : NULL;
}


void sn_scenery_free(sn_scenery *s)
{
    if (!s)
        return;
    free(s->objs);
    free(s->skipped);
    memset(s, 0, sizeof *s);
}

sn_status sn_scenery_build(const sn_map *m, const sn_scenery_opts *o, const sn_scenery_line *lines, size_t n_lines,
                           const sn_scenery_avoid *avoid, size_t n_avoid, sn_road_mesh *mesh, sn_scenery *out,
                           sn_error *err)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!(o->density > 0 && o->density <= 4))
        return sn_fail(err, SN_E_RANGE, "scenery: density %g is not in (0, 4]", o->density);
    placer P;
    memset(&P, 0, sizeof P);
    P.m = m, P.o = o;
    P.blocked = sn_scenery_blocked_types();
    sn_sgeom_init(&P.g, mesh);
    P.out.first_chunk = mesh->n_chunks;
    memset(P.head, 0xFF, sizeof P.head);
    for (size_t i = 0; i < n_avoid && !P.oom; i++)
        sn_pl_add_box(&P, sn_pl_obb_of(avoid[i].cx, avoid[i].cy, avoid[i].yaw, avoid[i].hx, avoid[i].hy));
    if (!P.oom)
        sn_pl_keep_dead_ends_clear(&P);
    if (!P.oom)
        sn_pl_pass_map_objects(&P);
    if (!P.oom)
        sn_pl_pass_signs(&P);
    if (!P.oom)
        sn_pl_pass_stop_lines(&P, lines, n_lines);
    if (!P.oom)
        sn_pl_pass_zebras(&P);
    if (!P.oom)
        sn_pl_pass_pillars(&P);
    if (!P.oom)
        sn_pl_pass_rails(&P);
    if (!P.oom)
        sn_pl_pass_lights(&P);
    if (!P.oom)
        sn_pl_pass_furniture(&P);
    if (!P.oom)
        sn_pl_pass_buildings(&P);
    if (!P.oom)
        sn_pl_pass_fill(&P);
    if (!P.oom)
        sn_pl_pass_plots(&P);
    if (!P.oom)
        sn_pl_pass_trees(&P);
    if (!P.oom)
        sn_pl_pass_patches(&P);
    free(P.boxes);
    free(P.ents);
    if (P.oom) {
        P.g.oom = true;
        sn_sgeom_finish(&P.g);
        free(P.out.objs);
        free(P.out.skipped);
        return sn_fail(err, SN_E_NOMEM, "scenery: out of memory");
    }
    if (!sn_sgeom_finish(&P.g)) {
        free(P.out.objs);
        free(P.out.skipped);
        return sn_fail(err, SN_E_NOMEM, "scenery: out of memory or more than 2^32 vertices");
    }
    if (out)
        *out = P.out;
    else
        free(P.out.objs), free(P.out.skipped);
    return SN_OK;
}
