/* encoder.c — see encoder.h. */
#include "encoder.h"
#include "outfile.h"

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>

#include <stdlib.h>
#include <string.h>

struct sn_enc {
    sn_enc_kind kind;
    AVFormatContext *oc;
    AVCodecContext *c;
    AVStream *st;
    AVFrame *frame;
    AVPacket *pkt;
    struct SwsContext *sws;
    bool header_written;
};

/* "what: FFmpeg's reason" into err. */
static sn_status av_fail(sn_error *err, int rc, const char *what)
{
    char why[AV_ERROR_MAX_STRING_SIZE] = "";
    av_strerror(rc, why, sizeof why);
    return sn_cli_fail(err, SN_E_IO, "%s: %s", what, why);
}

static const char *kind_name(sn_enc_kind k) { return k == SN_ENC_GIF ? "GIF" : "H.264"; }

sn_enc *sn_enc_open(const char *path, sn_enc_kind kind, int w, int h, int tb_num, int tb_den, int rate_num,
                    int rate_den, sn_error *err)
{
    av_log_set_level(AV_LOG_QUIET); /* failures come back as return codes, said in sensim's words */
    sn_enc *e = calloc(1, sizeof *e);
    if (!e) {
        sn_cli_fail(err, SN_E_NOMEM, "%s: out of memory", path);
        return NULL;
    }
    e->kind = kind;
    const bool gif = kind == SN_ENC_GIF;
    const AVCodec *codec = gif ? avcodec_find_encoder(AV_CODEC_ID_GIF) : avcodec_find_encoder_by_name("libx264");
    int rc = avformat_alloc_output_context2(&e->oc, NULL, gif ? "gif" : "mp4", path);
    if (!codec) {
        sn_cli_fail(err, SN_E_UNSUPPORTED, "%s: this FFmpeg has no %s encoder (Debian's libavcodec has libx264)", path,
                    gif ? "GIF" : "libx264");
        goto fail;
    }
    if (rc < 0) {
        av_fail(err, rc, path);
        goto fail;
    }
    e->oc->flags |= AVFMT_FLAG_BITEXACT;
    e->c = avcodec_alloc_context3(codec);
    e->st = avformat_new_stream(e->oc, NULL);
    e->frame = av_frame_alloc();
    e->pkt = av_packet_alloc();
    if (!e->c || !e->st || !e->frame || !e->pkt) {
        sn_cli_fail(err, SN_E_NOMEM, "%s: out of memory for the encoder", path);
        goto fail;
    }
    AVCodecContext *c = e->c;
    c->width = w;
    c->height = h;
    c->time_base = (AVRational){tb_num, tb_den};
    c->framerate = (AVRational){rate_num, rate_den};
    c->pix_fmt = gif ? AV_PIX_FMT_PAL8 : AV_PIX_FMT_YUV420P;
    c->thread_count = 1; /* one thread: the same bytes on any machine with this FFmpeg */
    c->flags |= AV_CODEC_FLAG_BITEXACT;
    if (e->oc->oformat->flags & AVFMT_GLOBALHEADER)
        c->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    if (!gif) {
        c->gop_size = 2 * (rate_den ? rate_num / rate_den : 10) + 1; /* a key frame about every 2 s: seeking */
        c->colorspace = AVCOL_SPC_SMPTE170M; /* what swscale's default RGB->YUV matrix is (BT.601) */
        c->color_range = AVCOL_RANGE_MPEG;
        c->color_primaries = AVCOL_PRI_BT709; /* sRGB's primaries */
        c->color_trc = AVCOL_TRC_IEC61966_2_1;
        av_opt_set(c->priv_data, "preset", "veryfast", 0);
        av_opt_set(c->priv_data, "crf", "18", 0);
        e->sws = sws_getContext(w, h, AV_PIX_FMT_RGB24, w, h, AV_PIX_FMT_YUV420P,
                                SWS_BICUBIC | SWS_ACCURATE_RND | SWS_BITEXACT, NULL, NULL, NULL);
        if (!e->sws) {
            sn_cli_fail(err, SN_E_NOMEM, "%s: cannot set up the colour conversion for %dx%d", path, w, h);
            goto fail;
        }
    }
    if ((rc = avcodec_open2(c, codec, NULL)) < 0) {
        char what[4200];
        snprintf(what, sizeof what, "%s: cannot open the %s encoder for %dx%d", path, kind_name(kind), w, h);
        av_fail(err, rc, what);
        goto fail;
    }
    e->st->time_base = c->time_base;
    e->st->avg_frame_rate = c->framerate;
    e->st->r_frame_rate = c->framerate;
    if ((rc = avcodec_parameters_from_context(e->st->codecpar, c)) < 0) {
        av_fail(err, rc, path);
        goto fail;
    }
    e->frame->format = c->pix_fmt;
    e->frame->width = w;
    e->frame->height = h;
    if ((rc = av_frame_get_buffer(e->frame, 0)) < 0 || (rc = avio_open(&e->oc->pb, path, AVIO_FLAG_WRITE)) < 0) {
        av_fail(err, rc, path);
        goto fail;
    }
    AVDictionary *mux = NULL;
    if (!gif)
        av_dict_set(&mux, "movflags", "+faststart", 0);
    rc = avformat_write_header(e->oc, &mux);
    av_dict_free(&mux);
    if (rc < 0) {
        av_fail(err, rc, path);
        goto fail;
    }
    e->header_written = true;
    return e;
fail:
    sn_enc_close(e);
    return NULL;
}

/* Writes every packet the encoder has ready. */
static sn_status drain(sn_enc *e, sn_error *err)
{
    for (;;) {
        int rc = avcodec_receive_packet(e->c, e->pkt);
        if (rc == AVERROR(EAGAIN) || rc == AVERROR_EOF)
            return SN_OK;
        if (rc < 0)
            return av_fail(err, rc, e->oc->url);
        av_packet_rescale_ts(e->pkt, e->c->time_base, e->st->time_base);
        e->pkt->stream_index = e->st->index;
        rc = av_interleaved_write_frame(e->oc, e->pkt); /* takes the packet's reference */
        if (rc < 0)
            return av_fail(err, rc, e->oc->url);
    }
}

static sn_status send(sn_enc *e, int64_t pts, sn_error *err)
{
    e->frame->pts = pts;
    int rc = avcodec_send_frame(e->c, e->frame);
    return rc < 0 ? av_fail(err, rc, e->oc->url) : drain(e, err);
}

sn_status sn_enc_put_rgb(sn_enc *e, const uint8_t *rgb, int64_t pts, sn_error *err)
{
    int rc = av_frame_make_writable(e->frame); /* the encoder may still hold the last one */
    if (rc < 0)
        return av_fail(err, rc, e->oc->url);
    const uint8_t *src[1] = {rgb};
    const int stride[1] = {3 * e->c->width};
    sws_scale(e->sws, src, stride, 0, e->c->height, e->frame->data, e->frame->linesize);
    return send(e, pts, err);
}

sn_status sn_enc_put_indexed(sn_enc *e, const uint8_t *idx, const uint32_t palette[256], int64_t pts, sn_error *err)
{
    int rc = av_frame_make_writable(e->frame);
    if (rc < 0)
        return av_fail(err, rc, e->oc->url);
    for (int y = 0; y < e->c->height; y++)
        memcpy(e->frame->data[0] + (size_t)y * e->frame->linesize[0], idx + (size_t)y * e->c->width,
               (size_t)e->c->width);
    memcpy(e->frame->data[1], palette, 256 * sizeof palette[0]);
    return send(e, pts, err);
}

sn_status sn_enc_finish(sn_enc *e, sn_error *err)
{
    int rc = avcodec_send_frame(e->c, NULL);
    if (rc < 0)
        return av_fail(err, rc, e->oc->url);
    sn_status st = drain(e, err);
    if (st)
        return st;
    if ((rc = av_write_trailer(e->oc)) < 0)
        return av_fail(err, rc, e->oc->url);
    e->header_written = false;
    if ((rc = avio_closep(&e->oc->pb)) < 0)
        return av_fail(err, rc, e->oc->url);
    return SN_OK;
}

void sn_enc_close(sn_enc *e)
{
    if (!e)
        return;
    if (e->oc && e->oc->pb)
        avio_closep(&e->oc->pb);
    avformat_free_context(e->oc);
    avcodec_free_context(&e->c);
    av_frame_free(&e->frame);
    av_packet_free(&e->pkt);
    sws_freeContext(e->sws);
    free(e);
}

sn_status sn_rgb_scale(const uint8_t *src, int sw, int sh, uint8_t *dst, int dw, int dh, sn_error *err)
{
    struct SwsContext *s = sws_getContext(sw, sh, AV_PIX_FMT_RGB24, dw, dh, AV_PIX_FMT_RGB24,
                                          SWS_AREA | SWS_ACCURATE_RND | SWS_BITEXACT, NULL, NULL, NULL);
    if (!s)
        return sn_cli_fail(err, SN_E_NOMEM, "cannot scale a %dx%d picture to %dx%d", sw, sh, dw, dh);
    const uint8_t *in[1] = {src};
    uint8_t *out[1] = {dst};
    const int in_stride[1] = {3 * sw}, out_stride[1] = {3 * dw};
    sws_scale(s, in, in_stride, 0, sh, out, out_stride);
    sws_freeContext(s);
    return SN_OK;
}

sn_status sn_png_encode(const uint8_t *rgb, int w, int h, uint8_t **png, size_t *len, sn_error *err)
{
    av_log_set_level(AV_LOG_QUIET);
    *png = NULL;
    *len = 0;
    const AVCodec *codec = avcodec_find_encoder(AV_CODEC_ID_PNG);
    AVCodecContext *c = codec ? avcodec_alloc_context3(codec) : NULL;
    AVFrame *f = av_frame_alloc();
    AVPacket *p = av_packet_alloc();
    sn_status st = SN_OK;
    int rc = 0;
    if (!codec || !c || !f || !p) {
        st = sn_cli_fail(err, SN_E_NOMEM, "no PNG encoder (out of memory or FFmpeg without one)");
        goto done;
    }
    c->width = w, c->height = h, c->pix_fmt = AV_PIX_FMT_RGB24, c->time_base = (AVRational){1, 1};
    c->thread_count = 1;
    c->flags |= AV_CODEC_FLAG_BITEXACT;
    f->format = AV_PIX_FMT_RGB24, f->width = w, f->height = h;
    if ((rc = avcodec_open2(c, codec, NULL)) < 0 || (rc = av_frame_get_buffer(f, 0)) < 0) {
        st = av_fail(err, rc, "PNG encoder");
        goto done;
    }
    for (int y = 0; y < h; y++)
        memcpy(f->data[0] + (size_t)y * f->linesize[0], rgb + (size_t)y * 3 * w, (size_t)3 * w);
    /* the PNG encoder makes one whole file per frame */
    if ((rc = avcodec_send_frame(c, f)) < 0 || (rc = avcodec_receive_packet(c, p)) < 0) {
        st = av_fail(err, rc, "PNG encoder");
        goto done;
    }
    *png = malloc((size_t)p->size);
    if (!*png) {
        st = sn_cli_fail(err, SN_E_NOMEM, "out of memory for a PNG of %d bytes", p->size);
        goto done;
    }
    memcpy(*png, p->data, (size_t)p->size);
    *len = (size_t)p->size;
done:
    av_packet_free(&p);
    av_frame_free(&f);
    avcodec_free_context(&c);
    return st;
}
