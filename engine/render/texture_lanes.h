/* texture_lanes.h — sn_shade_texture_fast's loop over lanes of any width, written once: shade.c
** includes it for SSE2's four lanes (simd4.h), texture_avx2.c for AVX2's eight (simd8.h, the
** noise's table read by a gather). Every lane does the same IEEE operations in the same order,
** so the two give the same bits. Before including: VF, VI, VW, V(name) as fog_lanes.h, NOISE_N,
** and the function names NOISE_LANES_FN and TEX_LANES_FN. */

/* value_noise at VW points: the same lattice, smoothstep and mixing, in float */
static inline VF NOISE_LANES_FN(const float *table, VF x, VF y)
{
    VF fx = V(floor)(x), fy = V(floor)(y), tx = x - fx, ty = y - fy;
    const VI ux = V(trunc_i)(fx), uy = V(trunc_i)(fy); /* the cells, before the table's wrap */
    VI ix = ux & (NOISE_N - 1), iy = uy & (NOISE_N - 1);
    VI jx = (ix + 1) & (NOISE_N - 1), jy = (iy + 1) & (NOISE_N - 1);
    tx = tx * tx * (V(splat)(3.0f) - V(splat)(2.0f) * tx), ty = ty * ty * (V(splat)(3.0f) - V(splat)(2.0f) * ty);
    VI r0 = iy * NOISE_N, r1 = jy * NOISE_N;
    VF a, b, c, d;
    if (V(any)((ix != ix[0]) | (iy != iy[0]))) {
        /* lanes within a block of 2 x 2 cells (the road's 7 cm grain within a few metres): its 3 x 3
        ** corners read once and picked lane by lane, not gathered: the same values */
        const VI dx = ux - ux[0], dy = uy - uy[0];
        const int bx = ux[0] - (V(any)(dx < 0) ? 1 : 0), by = uy[0] - (V(any)(dy < 0) ? 1 : 0); /* its first cell */
        const VI rx = ux - bx, ry = uy - by;
        if (!V(any)((rx | ry) & ~1)) {
            const VI hx = rx != 0, hy = ry != 0; /* the lane's cell is the block's second in x, in y */
            VF row[3][2];
            for (int k = 0; k < 3; k++) {
                const float *t = table + ((by + k) & (NOISE_N - 1)) * NOISE_N;
                const VF t0 = V(splat)(t[bx & (NOISE_N - 1)]), t1 = V(splat)(t[(bx + 1) & (NOISE_N - 1)]),
                         t2 = V(splat)(t[(bx + 2) & (NOISE_N - 1)]);
                row[k][0] = V(sel)(hx, t1, t0), row[k][1] = V(sel)(hx, t2, t1); /* corners ix and jx of row by + k */
            }
            a = V(sel)(hy, row[1][0], row[0][0]), b = V(sel)(hy, row[1][1], row[0][1]), c = V(sel)(hy, row[2][0], row[1][0]),
            d = V(sel)(hy, row[2][1], row[1][1]);
        } else {
            a = V(gather)(table, r0 + ix), b = V(gather)(table, r0 + jx), c = V(gather)(table, r1 + ix),
            d = V(gather)(table, r1 + jx);
        }
    } else { /* every lane in one cell (neighbouring pixels, a coarse noise): its four corners once */
        a = V(splat)(table[r0[0] + ix[0]]), b = V(splat)(table[r0[0] + jx[0]]), c = V(splat)(table[r1[0] + ix[0]]),
        d = V(splat)(table[r1[0] + jx[0]]);
    }
    VF top = a + (b - a) * tx, bottom = c + (d - c) * tx;
    return top + (bottom - top) * ty;
}

/* o: the lattice origins (shade.c lattice_origin) road1x, road1y, road2x, road2y, linex, liney,
** kerbxy, kerbz, tilex, tiley */
static void TEX_LANES_FN(const float o[10], const float *table, const uint8_t *tag, const float *dx, const float *dy,
                         const float *dz, const float *nz, float *albedo, size_t n)
{
    const VF one = V(splat)(1.0f);
    for (size_t i = 0; i < n; i += VW) {
        const VI t = V(tags)(tag + i);
        const VI road = t == SN_TAG_ROADS, line = t == SN_TAG_ROAD_LINE, side = t == SN_TAG_SIDEWALK;
        if (!V(any)(road | line | side))
            continue;
        const VF x = V(load)(dx + i), y = V(load)(dy + i);
        VF f = one;
        if (V(any)(road)) /* asphalt: grain at 7 cm and patches at 1.5 m */
            f = V(sel)(road,
                       V(splat)(0.9f) +
                           V(splat)(0.12f) * NOISE_LANES_FN(table, V(splat)(o[0]) + x * V(splat)((float)(1 / 0.07)),
                                                            V(splat)(o[1]) + y * V(splat)((float)(1 / 0.07))) +
                           V(splat)(0.08f) * NOISE_LANES_FN(table, V(splat)(o[2]) + x * V(splat)((float)(1 / 1.5)),
                                                            V(splat)(o[3]) + y * V(splat)((float)(1 / 1.5))),
                       f);
        if (V(any)(line)) /* paint worn in patches */
            f = V(sel)(line,
                       V(splat)(0.9f) + V(splat)(0.1f) * NOISE_LANES_FN(table, V(splat)(o[4]) + x * V(splat)((float)(1 / 0.3)),
                                                                        V(splat)(o[5]) + y * V(splat)((float)(1 / 0.3))),
                       f);
        if (V(any)(side)) {
            const VI kerb = side & (V(load)(nz + i) < V(splat)(0.5f)), top = side & ~kerb;
            if (V(any)(kerb)) /* a kerb's face: concrete grain along it */
                f = V(sel)(kerb,
                           V(splat)(0.92f) +
                               V(splat)(0.12f) * NOISE_LANES_FN(table, V(splat)(o[6]) + (x + y) * V(splat)(20.0f),
                                                                V(splat)(o[7]) + V(load)(dz + i) * V(splat)(20.0f)),
                           f);
            if (V(any)(top)) { /* 0.6 m tiles with darker joints */
                VF u = V(splat)(o[8]) + x * V(splat)((float)(1 / 0.6)), v = V(splat)(o[9]) + y * V(splat)((float)(1 / 0.6));
                VF fu = V(floor)(u), fv = V(floor)(v);
                VI joint = (u - fu < V(splat)(0.04f)) | (v - fv < V(splat)(0.04f));
                f = V(sel)(top, V(sel)(joint, V(splat)(0.78f), one) * (V(splat)(0.95f) + V(splat)(0.08f) * NOISE_LANES_FN(table, fu, fv)), f);
            }
        }
        V(store)(albedo + i, V(load)(albedo + i) * f);
    }
}
