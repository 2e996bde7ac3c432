/* A run's RGB frames kept by a listener, and how far two runs' frames are apart: shared by the
** tests that bound an approximation against its exact path (test_postfx_quarter, test_shade_pairs).
** Define FRAMES (frames kept a run) before including it. */
#ifndef SN_TEST_FRAME_DIFF_H
#define SN_TEST_FRAME_DIFF_H

#include "../testutil.h"

#include <stdlib.h>
#include <string.h>

typedef struct frames {
    uint8_t *raw[FRAMES]; /* owned: frames_free */
    uint32_t w, h;
    int n;
} frames;

/* sn_engine_listen's callback: keeps the first FRAMES images of the camera in `user` (a frames). */
static void on_frame(const sn_message *m, void *user)
{
    frames *f = user;
    tu_image one = {0};
    tu_on_image(m, &one);
    if (one.raw && f->n < FRAMES) {
        f->raw[f->n++] = one.raw, f->w = one.w, f->h = one.h;
        return;
    }
    tu_image_free(&one);
}

static void frames_free(frames *f)
{
    for (int i = 0; i < f->n; i++)
        free(f->raw[i]);
    f->n = 0;
}

/* How two runs' FRAMES frames of w x h differ, over the colour channels. */
typedef struct frame_diff {
    int differ; /* frames not byte-identical */
    int worst;  /* the largest channel error */
    double mean;  /* the mean absolute channel error */
    double share; /* the share of pixels with a channel more than 8 off */
} frame_diff;

static frame_diff frames_diff(const frames *a, const frames *b, uint32_t w, uint32_t h)
{
    frame_diff d = {0};
    double sum = 0;
    size_t n = 0, far = 0;
    for (int k = 0; k < FRAMES; k++) {
        d.differ += memcmp(a->raw[k], b->raw[k], (size_t)w * h * 4) != 0;
        for (size_t i = 0; i < (size_t)w * h; i++) {
            int dp = 0;
            for (int c = 0; c < 3; c++) {
                int e = abs((int)a->raw[k][4 * i + c] - (int)b->raw[k][4 * i + c]);
                d.worst = e > d.worst ? e : d.worst, sum += e, n++;
                dp = e > dp ? e : dp;
            }
            far += dp > 8;
        }
    }
    d.mean = sum / (double)n, d.share = (double)far / ((double)w * h * FRAMES);
    return d;
}

#endif
