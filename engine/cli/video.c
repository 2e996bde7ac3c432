/* video.c — see video.h. Two passes over the stream: the first learns the timestamps, the
** picture size and (for the GIF) the colours; the second encodes. */
#include "video.h"
#include "encoder.h"
#include "outfile.h"
#include "palette.h"

#include <sensim/grow.h>
#include <libavutil/rational.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct plan {
    double *t;         /* timestamps, one per picture */
    size_t n, cap;
    uint32_t w, h;     /* the pictures' size */
    int gw, gh;        /* the GIF's */
    sn_palette *pal;   /* NULL without a GIF */
    uint8_t *small;    /* a picture scaled for the GIF */
} plan;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The GIF-sized picture (scaled when wider than the limit, else the picture itself). */
static const uint8_t *gif_picture(plan *p, const sn_picture *pic, sn_error *err)
{
    if (p->gw == (int)pic->width)
        return pic->rgb;
    return sn_rgb_scale(pic->rgb, (int)pic->width, (int)pic->height, p->small, p->gw, p->gh, err) ? NULL : p->small;
}

/* H.264's largest level (6.2) holds 8192x4320: a side beyond 8192 no encoder opens. */
#define SN_VIDEO_MAX_SIDE 8192
static sn_status check_timing(const sn_video_job *job, const plan *p, sn_error *err);

/* Pass 1: timestamps, size, colours. Every failure here is the input's. */
static sn_status survey(const sn_video_job *job, plan *p, sn_error *err)
{
    sn_stream_reader *r = sn_stream_reader_open(job->stream, err);
    if (!r)
        return err->status;
    sn_message m;
    sn_status st;
    while ((st = sn_stream_reader_next(r, &m, err)) == SN_OK) {
        sn_picture pic;
        /* without a GIF, only the first picture is made here: its size; the rest in pass 2 */
        if ((p->n == 0 || p->pal) && (st = sn_stream_reader_picture(r, job->conv, true, &pic, err)))
            break;
        if (p->n == 0) {
            p->w = pic.width, p->h = pic.height;
            p->gw = (int)(p->w > SN_GIF_MAX_WIDTH ? SN_GIF_MAX_WIDTH : p->w);
            p->gh = (int)lround((double)p->h * p->gw / p->w);
            p->gh = p->gh < 1 ? 1 : p->gh;
            if (p->pal && !(p->small = malloc((size_t)p->gw * p->gh * 3))) {
                st = sn_cli_fail(err, SN_E_NOMEM, "out of memory for a %dx%d picture", p->gw, p->gh);
                break;
            }
        } else if (p->pal && (pic.width != p->w || pic.height != p->h)) {
            st = sn_cli_fail(err, SN_E_INVALID, "%s: frame %llu is %ux%u, the first picture was %ux%u", job->stream,
                             (unsigned long long)m.frame, pic.width, pic.height, p->w, p->h);
            break;
        }
        if (p->pal) {
            const uint8_t *g = gif_picture(p, &pic, err);
            if (!g) {
                st = err->status;
                break;
            }
            sn_palette_add(p->pal, g, (size_t)p->gw * p->gh);
        }
        if (!SN_GROW(p->t, p->cap, p->n + 1)) {
            st = sn_cli_fail(err, SN_E_NOMEM, "out of memory for %zu timestamps", p->n + 1);
            break;
        }
        if (!isfinite(m.timestamp) || (p->n && !(m.timestamp > p->t[p->n - 1]))) {
            st = sn_cli_fail(err, SN_E_INVALID, "%s: the timestamp of frame %llu (%.9g s) does not follow the last (%.9g s)",
                             job->stream, (unsigned long long)m.frame, m.timestamp, p->t[p->n - 1]);
            break;
        }
        p->t[p->n++] = m.timestamp;
    }
    sn_stream_reader_close(r);
    if (st == SN_E_NOT_FOUND)
        st = p->n ? SN_OK : sn_cli_fail(err, SN_E_INVALID, "%s: the stream has no messages", job->stream);
    if (!st && job->mp4 && (p->w > SN_VIDEO_MAX_SIDE || p->h > SN_VIDEO_MAX_SIDE))
        st = sn_cli_fail(err, SN_E_INVALID, "%s: the pictures are %ux%u; an H.264 video is at most %d pixels a side",
                         job->stream, p->w, p->h, SN_VIDEO_MAX_SIDE);
    if (!st && p->n > 1)
        st = check_timing(job, p, err);
    return st;
}

/* The nominal rate: one over the median interval (the sensor's tick); 1 frame per second for a lone picture. */
static AVRational frame_rate(const plan *p)
{
    if (p->n < 2)
        return (AVRational){1, 1};
    double *d = malloc((p->n - 1) * sizeof *d);
    if (!d)
        return (AVRational){1, 1};
    for (size_t i = 1; i < p->n; i++)
        d[i - 1] = p->t[i] - p->t[i - 1];
    qsort(d, p->n - 1, sizeof *d, cmp_double);
    double med = d[(p->n - 1) / 2];
    free(d);
    return av_d2q(1.0 / med, 100000);
}

/* The rate and the pts must be representable: a median interval within [1e-5 s, 1e5 s] (the rate
** is a fraction of at most 100000) and the span at most 1e12 intervals (pts are int64). Absurd
** timestamps (1e300 s apart) are the input's fault, said as such (issue 33 item 23). */
static sn_status check_timing(const sn_video_job *job, const plan *p, sn_error *err)
{
    AVRational rate = frame_rate(p);
    double fps = rate.den > 0 ? av_q2d(rate) : 0, span = p->t[p->n - 1] - p->t[0];
    if (!(fps >= 1e-5 && fps <= 1e5) || !isfinite(span) || !(span * fps <= 1e12))
        return sn_cli_fail(err, SN_E_INVALID, "%s: the timestamps (%.9g s to %.9g s over %zu pictures) give no "
                           "video frame rate: the intervals must lie within 1e-5 s and 1e5 s",
                           job->stream, p->t[0], p->t[p->n - 1], p->n);
    return SN_OK;
}

/* Frame i's pts in ticks of 1/`per_s` seconds, at least one after the last. */
static int64_t pts_of(const plan *p, size_t i, double per_s, int64_t last)
{
    int64_t v = llrint((p->t[i] - p->t[0]) * per_s);
    return i && v <= last ? last + 1 : v;
}

/* Copies a picture into an even-sized one, repeating the last column and row. */
static void pad_even(const sn_picture *pic, uint8_t *out, uint32_t w2, uint32_t h2)
{
    for (uint32_t y = 0; y < h2; y++) {
        const uint8_t *src = pic->rgb + (size_t)(y < pic->height ? y : pic->height - 1) * pic->width * 3;
        uint8_t *dst = out + (size_t)y * w2 * 3;
        memcpy(dst, src, (size_t)pic->width * 3);
        if (w2 > pic->width)
            memcpy(dst + (size_t)pic->width * 3, src + (size_t)(pic->width - 1) * 3, 3);
    }
}

typedef struct outputs {
    sn_outfile mp4_file, gif_file;
    sn_enc *mp4, *gif;
    uint8_t *even, *idx;
} outputs;

/* Pass 2. Failures of the input are marked in res; the rest are the writing's. */
static sn_status encode(const sn_video_job *job, plan *p, outputs *o, sn_video_result *res, sn_error *err)
{
    AVRational rate = frame_rate(p);
    res->rate_num = rate.num, res->rate_den = rate.den;
    double fps = av_q2d(rate);
    uint32_t w2 = p->w + (p->w & 1), h2 = p->h + (p->h & 1);
    bool pad = w2 != p->w || h2 != p->h;
    if (job->mp4) {
        if (pad && !(o->even = malloc((size_t)w2 * h2 * 3)))
            return sn_cli_fail(err, SN_E_NOMEM, "out of memory for a %ux%u picture", w2, h2);
        o->mp4 = sn_enc_open(o->mp4_file.stage, SN_ENC_H264_MP4, (int)w2, (int)h2, rate.den, rate.num, rate.num,
                             rate.den, err);
        if (!o->mp4)
            return err->status;
    }
    if (job->gif) {
        sn_palette_build(p->pal);
        if (!(o->idx = malloc((size_t)p->gw * p->gh)))
            return sn_cli_fail(err, SN_E_NOMEM, "out of memory for a %dx%d picture", p->gw, p->gh);
        o->gif = sn_enc_open(o->gif_file.stage, SN_ENC_GIF, p->gw, p->gh, 1, 100, rate.num, rate.den, err);
        if (!o->gif)
            return err->status;
    }
    sn_stream_reader *r = sn_stream_reader_open(job->stream, err);
    if (!r) {
        res->input_error = true;
        return err->status;
    }
    sn_status st = SN_OK;
    int64_t last = -1, last_cs = -2;
    for (size_t i = 0; i < p->n && !st; i++) {
        sn_message m;
        sn_picture pic;
        if ((st = sn_stream_reader_next(r, &m, err)) || (st = sn_stream_reader_picture(r, job->conv, true, &pic, err))) {
            res->input_error = true;
            break;
        }
        if (pic.width != p->w || pic.height != p->h) {
            st = sn_cli_fail(err, SN_E_INVALID, "%s: frame %llu is %ux%u, the first picture was %ux%u", job->stream,
                             (unsigned long long)m.frame, pic.width, pic.height, p->w, p->h);
            res->input_error = true;
            break;
        }
        if (o->mp4) {
            if (pad)
                pad_even(&pic, o->even, w2, h2);
            last = pts_of(p, i, fps, last);
            if ((st = sn_enc_put_rgb(o->mp4, pad ? o->even : pic.rgb, last, err)))
                break;
            res->frames++;
        }
        if (o->gif) {
            /* GIF delays are 1/100 s and browsers slow anything under 2/100 s: closer frames are dropped */
            int64_t cs = llrint((p->t[i] - p->t[0]) * 100.0);
            if (i && cs < last_cs + 2)
                continue;
            const uint8_t *g = gif_picture(p, &pic, err);
            if (!g) {
                st = err->status;
                break;
            }
            sn_palette_map(p->pal, g, (size_t)p->gw * p->gh, o->idx);
            if ((st = sn_enc_put_indexed(o->gif, o->idx, p->pal->argb, cs, err)))
                break;
            last_cs = cs;
            res->gif_frames++;
        }
    }
    sn_stream_reader_close(r);
    if (!st && o->mp4)
        st = sn_enc_finish(o->mp4, err);
    if (!st && o->gif)
        st = sn_enc_finish(o->gif, err);
    if (!st && job->mp4)
        st = sn_outfile_commit(&o->mp4_file, err);
    if (!st && job->gif && (st = sn_outfile_commit(&o->gif_file, err)) && job->mp4)
        unlink(job->mp4); /* both or neither: the MP4 was put there a moment ago by this run */
    return st;
}

sn_status sn_cli_video(const sn_video_job *job, sn_video_result *res, sn_error *err)
{
    memset(res, 0, sizeof *res);
    plan p = {0};
    outputs o = {0};
    o.mp4_file.fd = o.gif_file.fd = -1;
    sn_status st = SN_OK;
    res->input_error = true;
    if (job->gif && !(p.pal = malloc(sizeof *p.pal)))
        st = sn_cli_fail(err, SN_E_NOMEM, "out of memory for a palette");
    if (!st && job->gif)
        sn_palette_init(p.pal);
    /* the outputs are claimed first: a name that exists is refused before any work */
    if (!st && job->mp4)
        st = sn_outfile_open(&o.mp4_file, job->mp4, job->overwrite, err);
    if (!st && job->gif)
        st = sn_outfile_open(&o.gif_file, job->gif, job->overwrite, err);
    if (!st)
        st = survey(job, &p, err);
    if (!st) {
        res->input_error = false;
        res->width = p.w, res->height = p.h;
        st = encode(job, &p, &o, res, err);
    }
    sn_enc_close(o.mp4);
    sn_enc_close(o.gif);
    sn_outfile_drop(&o.mp4_file);
    sn_outfile_drop(&o.gif_file);
    free(o.even);
    free(o.idx);
    free(p.t);
    free(p.small);
    free(p.pal);
    return st;
}

int sn_cli_convert_video(const char *stream, const char *mp4, const char *gif, sn_color_converter conv, bool overwrite)
{
    if (mp4 && gif && strcmp(mp4, gif) == 0) {
        fprintf(stderr, "sensim: error: convert: --video and --gif name the same file %s\n", mp4);
        return 2;
    }
    sn_video_job job = {stream, mp4, gif, conv, overwrite};
    sn_video_result res;
    sn_error err = {0};
    if (sn_cli_video(&job, &res, &err) != SN_OK) {
        fprintf(stderr, "sensim: error: convert: %s\n", err.msg);
        return res.input_error ? 2 : 1;
    }
    if (mp4)
        printf("sensim: %zu frames of %ux%u at %.6g fps written to %s\n", res.frames, res.width, res.height,
               (double)res.rate_num / res.rate_den, mp4);
    if (gif)
        printf("sensim: %zu frames written to %s\n", res.gif_frames, gif);
    return 0;
}
