/* raster.h — one screen triangle into a depth (1/depth) and id buffer, by integer edge functions:
** 8 subpixel bits, a top-left style tie rule (shared edges have neither cracks nor double hits),
** 1/depth interpolated per pixel and kept where it is larger (nearer), the triangle's number written
** beside it. Wide triangles: each row's span solved exactly, then filled four pixels at a time
** with SSE2 or eight with AVX2 (lanes.h); narrow ones whose edge functions fit in 32 bits over
** their box: every pixel of the box tested without branches, four at a time with SSE2 — the same
** pixels and bits either way. With a coarse depth
** (zmin below), what lies wholly behind it is skipped, exactly: the same bits again. The renderer
** (render.c) sets triangles up and calls this per band of rows. */
#ifndef SN_RASTER_H
#define SN_RASTER_H

#include <stdbool.h>
#include <stdint.h>

#define SN_RASTER_SUB 8 /* subpixel bits of the fixed-point coordinates */

/* What the rasteriser reads of a triangle, kept small (52 bytes): the bands stream through
** every triangle once more after setup, so its size is memory traffic. */
typedef struct sn_tri {
    /* fixed point, wound so that the doubled area is positive; the guard band keeps them
    ** within 4.5 image widths of the image (at most 16384 samples, 2^26.2 in fixed point) */
    int32_t X[3], Y[3];
    int32_t x0, x1, y0, y1; /* pixels whose centres may be covered, inclusive, inside the image */
    float wa, wb, wc;       /* 1/depth = wa*x + wb*y + wc at the centre of pixel (x, y) */
} sn_tri;

#define SN_RASTER_ZSEG_SHIFT 5                   /* a row's coarse depth: one per 32 pixels */
#define SN_RASTER_ZSEG (1 << SN_RASTER_ZSEG_SHIFT)

/* The buffers drawn into: W wide, row by row from row y0 (borrowed from the renderer: the whole
** frame, y0 = 0, or one band's rows, which stay in the cache while the band is drawn and shaded). */
typedef struct sn_raster_target {
    float *wbuf;     /* 1/depth of the nearest surface so far, row y0 first */
    uint32_t *idbuf; /* the number of the triangle that drew it; NULL: not kept (depth alone) */
    uint32_t W;
    /* Coarse depth, NULL: none. Per row, per segment of SN_RASTER_ZSEG pixels (zstride a row), a
    ** value no larger than any 1/depth in the segment: a triangle whose box is nowhere nearer than
    ** its segments' values is skipped (no pixel of it would pass the depth test), a wide one's
    ** row or span likewise, and a wide span covering a whole segment raises its value. The caller sets a band's rows (e.g. to the clear value, which
    ** every 1/depth is at least) before drawing into them; anything else drawn into wbuf only
    ** raises depths, so the bound stays true. */
    float *zmin;
    uint32_t zstride;
    int32_t y0; /* the image row wbuf's, idbuf's and zmin's first row holds */
} sn_raster_target;

/* Triangle t, number ti of the frame, into rows [y_begin, y_end) of the buffers. */
void sn_raster(const sn_raster_target *r, const sn_tri *t, uint32_t ti, int32_t y_begin, int32_t y_end);

/* A ground plane's row from pixel x on, eight pixels at a time where the CPU has AVX2 (lanes.h):
** 1/depth = row + wa x kept where it is nearer than what is there and nearer than inv_near, the
** plane's id `id` beside it (ir NULL: none kept); `first` draws over a cleared row without reading
** it (as if it held inv_far and no id). Each lane the IEEE single operations of render.c's
** four-lane loop, so the same bits. Returns the first pixel not done (the rest, under eight, and
** every pixel without AVX2, are the caller's). */
uint32_t sn_raster_plane_row(float *wr, uint32_t *ir, uint32_t x, uint32_t W, float row, float wa, float inv_near,
                             float inv_far, uint32_t id, bool first);

#endif
