/* report_html.c — the report page: one self-contained HTML file (inline CSS and SVG, images as
** data: URIs, no script, nothing fetched), so it opens from disk, in a mail or an archive. */
#include "report_html.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define PLOT_W 760.0 /* the path plot's drawing area, pixels */
#define PLOT_H 520.0
#define BINS 60      /* time bins of the message counts */

static void esc(FILE *f, const char *s)
{
    for (; *s; s++)
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
}

static void base64(FILE *f, const uint8_t *p, size_t n)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        fputc(tab[v >> 18 & 63], f);
        fputc(tab[v >> 12 & 63], f);
        fputc(i + 1 < n ? tab[v >> 6 & 63] : '=', f);
        fputc(i + 2 < n ? tab[v & 63] : '=', f);
    }
}

/* Distinct colours for paths (Tableau 10). */
static const char *const COLOURS[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                                      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

/* A moving actor's colour: the next of the ten, in the order of the moving actors. */
static const char *colour_of(const run_data *d, size_t i)
{
    size_t k = 0;
    for (size_t j = 0; j < i; j++)
        k += !d->paths[j].is_static;
    return d->paths[i].is_static ? "#bbb" : COLOURS[k % 10];
}

/* 1, 2 or 5 times a power of ten, about span / 8. */
static double nice_step(double span)
{
    double raw = span / 8, p = pow(10, floor(log10(raw))), m = raw / p;
    return p * (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10);
}

static void summary(FILE *f, const run_data *d)
{
    fputs("<section id=\"summary\"><h2>Summary</h2><table>\n", f);
    fputs("<tr><th>run folder</th><td>", f);
    esc(f, d->dir);
    fputs("</td></tr>\n<tr><th>scene</th><td>", f);
    esc(f, d->scene[0] ? d->scene : "unknown (sensim run --stats RUN/stats.json records it)");
    fputs("</td></tr>\n<tr><th>seed</th><td>", f);
    if (d->has_seed)
        fprintf(f, "%llu", (unsigned long long)d->seed);
    else
        fputs("unknown", f);
    fputs("</td></tr>\n", f);
    if (d->has_stats)
        fprintf(f, "<tr><th>frames</th><td>%.0f (%.6g s simulated)</td></tr>\n", d->frames, d->sim_time);
    fprintf(f, "<tr><th>messages</th><td>frames %llu to %llu, %.6g s to %.6g s</td></tr>\n",
            (unsigned long long)d->frame_min, (unsigned long long)d->frame_max, d->t_min, d->t_max);
    if (d->dt > 0)
        fprintf(f, "<tr><th>fixed_delta_seconds</th><td>%.6g</td></tr>\n", d->dt);
    size_t total = 0;
    for (size_t i = 0; i < d->n_streams; i++)
        total += d->streams[i].count;
    fprintf(f, "<tr><th>streams</th><td>%zu sensors, %zu messages</td></tr>\n", d->n_streams, total);
    if (d->has_stats)
        fprintf(f, "<tr><th>timers (wall clock)</th><td>world %.3f s, sensors %.3f s, output %.3f s</td></tr>\n",
                d->time_world, d->time_sensors, d->time_output);
    else
        fputs("<tr><th>timers (wall clock)</th><td>not recorded (sensim run --stats RUN/stats.json)</td></tr>\n", f);
    for (size_t i = 0; i < d->n_streams; i++)
        if (d->streams[i].note[0]) {
            fputs("<tr><th>stream cut short</th><td>", f);
            esc(f, d->streams[i].note + 2);
            fputs("</td></tr>\n", f);
        }
    fputs("<tr><th>recording</th><td>", f);
    esc(f, d->recording[0] ? d->recording : "none (sensim run --record RUN/run.sensimrec gives every actor's path)");
    if (d->rec_note[0]) {
        fputs(" (cut short: ", f);
        esc(f, d->rec_note);
        fputs(")", f);
    }
    fputs("</td></tr>\n</table></section>\n", f);
}

/* The map's driving lanes inside the frame, each as wide as the lane, under everything else. */
static void map_lanes(FILE *f, const run_data *d, double x0, double y0, double x1, double y1, double s)
{
    if (!d->n_lanes)
        return;
    fputs("<g class=\"map\" clip-path=\"url(#frame)\">", f);
    for (size_t i = 0; i < d->n_lanes; i++) {
        const rd_lane *l = &d->lanes[i];
        bool inside = false;
        for (size_t k = 0; k < l->n && !inside; k++)
            inside = l->pts[k].x > x0 - 5 && l->pts[k].x < x1 + 5 && l->pts[k].y > y0 - 5 && l->pts[k].y < y1 + 5;
        if (!inside || l->n < 2)
            continue;
        fprintf(f, "<polyline stroke-width=\"%.1f\" points=\"", fmax(l->width * s, 1));
        for (size_t k = 0; k < l->n; k++)
            fprintf(f, "%s%.1f,%.1f", k ? " " : "", (l->pts[k].x - x0) * s, (l->pts[k].y - y0) * s);
        fputs("\"/>", f);
    }
    fputs("</g>\n", f);
}

/* Collisions: a count per pair of kinds (walker-walker contacts are many and alike), then the
** ones with a vehicle one by one, at most MAX_LISTED, with a count of those left out. */
#define MAX_LISTED 100
static void collisions(FILE *f, const run_data *d)
{
    if (!d->n_events)
        return;
    typedef struct pair_count {
        char a[12], b[12];
        size_t events;
        uint64_t frames;
    } pair_count;
    pair_count pc[16];
    size_t n_pc = 0, vehicle = 0;
    for (size_t i = 0; i < d->n_events; i++) {
        const rd_event *e = &d->events[i];
        const char *a = e->kind_a[0] ? e->kind_a : "unknown", *b = e->kind_b[0] ? e->kind_b : "unknown";
        if (strcmp(a, b) > 0) { /* one order per pair */
            const char *t = a;
            a = b, b = t;
        }
        vehicle += !strcmp(a, "vehicle") || !strcmp(b, "vehicle");
        size_t k = 0;
        while (k < n_pc && (strcmp(pc[k].a, a) || strcmp(pc[k].b, b)))
            k++;
        if (k == n_pc) {
            if (n_pc == 16)
                continue; /* cannot happen: four kinds make ten pairs */
            snprintf(pc[k].a, sizeof pc[k].a, "%s", a);
            snprintf(pc[k].b, sizeof pc[k].b, "%s", b);
            pc[k].events = 0, pc[k].frames = 0;
            n_pc++;
        }
        pc[k].events++;
        pc[k].frames += e->last_frame - e->frame + 1;
    }
    fputs("<h3>Collisions</h3><table id=\"collision-kinds\"><tr><th>between</th><th>collisions</th>"
          "<th>frames in contact</th></tr>\n", f);
    for (size_t k = 0; k < n_pc; k++)
        fprintf(f, "<tr><td>%s and %s</td><td>%zu</td><td>%llu</td></tr>\n", pc[k].a, pc[k].b, pc[k].events,
                (unsigned long long)pc[k].frames);
    fputs("</table>\n", f);
    if (!vehicle)
        return;
    fputs("<h3>Collisions of vehicles</h3><ol class=\"events\">", f);
    size_t listed = 0;
    for (size_t i = 0; i < d->n_events && listed < MAX_LISTED; i++) {
        const rd_event *e = &d->events[i];
        if (strcmp(e->kind_a, "vehicle") && strcmp(e->kind_b, "vehicle"))
            continue;
        listed++;
        fprintf(f, "<li>%.3f s, frame %llu", e->t, (unsigned long long)e->frame);
        if (e->last_frame > e->frame)
            fprintf(f, " to %llu", (unsigned long long)e->last_frame);
        fputs(": ", f);
        esc(f, e->what);
        fputs("</li>", f);
    }
    fputs("</ol>\n", f);
    if (vehicle > listed)
        fprintf(f, "<p class=\"note\" id=\"collisions-left-out\">%zu more collisions of vehicles not listed.</p>\n",
                vehicle - listed);
}

/* run.json's traffic health: a row per simulated minute (at most MAX_WINDOWS) and the totals. */
#define MAX_WINDOWS 120
static void health_row(FILE *f, const char *label, const rd_health *h)
{
    fprintf(f, "<tr><th>%s</th>", label);
    for (int k = 2; k < RD_HEALTH_FIELDS; k++)
        fprintf(f, "<td>%.0f</td>", h->v[k]);
    fputs("</tr>\n", f);
}

static void traffic_health(FILE *f, const run_data *d)
{
    if (!d->has_health)
        return;
    fputs("<section id=\"traffic-health\"><h2>Traffic health</h2>\n<p class=\"note\">Per simulated minute "
          "(docs/traffic.md): autopilot vehicles present through it, those that moved less than 1 m (standing) "
          "and less than 50 m (crawling); vehicles with |pitch| or |roll| over 30&deg;; a vehicle's front crossing "
          "a red light's stop line; autopilot vehicles that began to touch; the autopilot's deadlocks resolved "
          "and lane changes. The totals sum the minutes (vehicles as vehicle-minutes; flipped: distinct vehicles)."
          "</p>\n<table><tr><th>minute</th><th>vehicles</th><th>standing</th><th>crawling</th><th>flipped</th>"
          "<th>red-light crossings</th><th>autopilot collisions</th><th>deadlocks resolved</th>"
          "<th>lane changes</th></tr>\n", f);
    for (size_t i = 0; i < d->n_health && i < MAX_WINDOWS; i++) {
        char label[64];
        snprintf(label, sizeof label, "%.6g&ndash;%.6g s", d->health[i].v[0], d->health[i].v[0] + d->health[i].v[1]);
        health_row(f, label, &d->health[i]);
    }
    if (d->n_health > MAX_WINDOWS)
        fprintf(f, "<tr><th colspan=\"9\">%zu more minutes left out</th></tr>\n", d->n_health - MAX_WINDOWS);
    health_row(f, "all", &d->health_totals);
    fputs("</table></section>\n", f);
}

/* world.debug's shapes (CARLA's DebugHelper) seen from above, in their colours; a title names
** each one's kind, time and life time. */
static void debug_shapes(FILE *f, const run_data *d, double x0, double y0, double s)
{
    if (!d->n_shapes)
        return;
    fputs("<g class=\"debug\" clip-path=\"url(#frame)\">\n", f);
    for (size_t i = 0; i < d->n_shapes; i++) {
        const rd_shape *h = &d->shapes[i];
        double ax = (h->a.x - x0) * s, ay = (h->a.y - y0) * s, bx = (h->b.x - x0) * s, by = (h->b.y - y0) * s;
        char col[64];
        snprintf(col, sizeof col, "rgba(%u,%u,%u,%.3f)", h->rgba[0], h->rgba[1], h->rgba[2], h->rgba[3] / 255.0);
        double w = fmax(h->size * s, 1);
        const char *kind = h->kind == 'p' ? "point" : h->kind == 'l' ? "line" : h->kind == 'a' ? "arrow"
                         : h->kind == 'b' ? "box" : "string";
        fprintf(f, "<g class=\"shape %s\"><title>debug %s at %.2f s, life_time %g", kind, kind, h->t, h->life);
        if (h->kind == 's') {
            fputs(": ", f);
            esc(f, h->text);
        }
        fputs("</title>", f);
        switch (h->kind) {
        case 'p':
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\"/>", ax, ay, fmax(h->size * s / 2, 2), col);
            break;
        case 'l':
        case 'a':
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"%.1f\"/>", ax,
                    ay, bx, by, col, w);
            if (h->kind == 'a' && (bx != ax || by != ay)) { /* a head of 8 px at the end */
                double ang = atan2(by - ay, bx - ax);
                fprintf(f, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fz\" fill=\"%s\"/>", bx, by,
                        bx - 8 * cos(ang - 0.4), by - 8 * sin(ang - 0.4), bx - 8 * cos(ang + 0.4), by - 8 * sin(ang + 0.4),
                        col);
            }
            break;
        case 'b': {
            double c = cos(h->yaw * M_PI / 180), sn = sin(h->yaw * M_PI / 180);
            fputs("<polygon fill=\"none\" points=\"", f);
            static const int SX[4] = {1, 1, -1, -1}, SY[4] = {1, -1, -1, 1};
            for (int k = 0; k < 4; k++) {
                double lx = SX[k] * h->b.x, ly = SY[k] * h->b.y;
                fprintf(f, "%s%.1f,%.1f", k ? " " : "", ax + (lx * c - ly * sn) * s, ay + (lx * sn + ly * c) * s);
            }
            fprintf(f, "\" stroke=\"%s\" stroke-width=\"%.1f\"/>", col, w);
            break;
        }
        default:
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\">", ax, ay, col);
            esc(f, h->text);
            fputs("</text>", f);
        }
        fputs("</g>\n", f);
    }
    fputs("</g>\n", f);
}

/* The area the top view shows, b = {x0, y0, x1, y1}: what moves (or every actor when nothing
** does), the collisions and the debug shapes, with a 5 % margin and at least 20 m each way. */
static void plot_bounds(const run_data *d, double b[4])
{
    double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
    bool moving = false; /* the plot frames what moves; marks of static actors outside it are left out */
    for (size_t i = 0; i < d->n_paths; i++)
        moving |= !d->paths[i].is_static && d->paths[i].n;
    for (size_t i = 0; i < d->n_paths; i++)
        for (size_t k = 0; k < d->paths[i].n && (!moving || !d->paths[i].is_static); k++) {
            rd_pt p = d->paths[i].pts[k];
            x0 = fmin(x0, p.x), x1 = fmax(x1, p.x), y0 = fmin(y0, p.y), y1 = fmax(y1, p.y);
        }
    for (size_t i = 0; i < d->n_events; i++)
        if (isfinite(d->events[i].at.x) && isfinite(d->events[i].at.y)) {
            rd_pt p = d->events[i].at;
            x0 = fmin(x0, p.x), x1 = fmax(x1, p.x), y0 = fmin(y0, p.y), y1 = fmax(y1, p.y);
        }
    for (size_t i = 0; i < d->n_shapes; i++) {
        const rd_shape *h = &d->shapes[i];
        x0 = fmin(x0, h->a.x), x1 = fmax(x1, h->a.x), y0 = fmin(y0, h->a.y), y1 = fmax(y1, h->a.y);
        if (h->kind == 'l' || h->kind == 'a')
            x0 = fmin(x0, h->b.x), x1 = fmax(x1, h->b.x), y0 = fmin(y0, h->b.y), y1 = fmax(y1, h->b.y);
    }
    if (!(x1 >= x0)) /* nothing to place: an empty area around the origin */
        x0 = y0 = -10, x1 = y1 = 10;
    /* at least 20 m each way, and a margin of 5 % */
    double cx = (x0 + x1) / 2, cy = (y0 + y1) / 2, hx = fmax((x1 - x0) * 0.55, 10), hy = fmax((y1 - y0) * 0.55, 10);
    b[0] = cx - hx, b[1] = cy - hy, b[2] = cx + hx, b[3] = cy + hy;
}

/* The grid lines with their metres, every nice step. */
static void plot_grid(FILE *f, double x0, double y0, double x1, double y1, double s, double W, double H)
{
    double step = nice_step(fmax(x1 - x0, y1 - y0));
    fputs("<g class=\"grid\">", f);
    for (double gx = ceil(x0 / step) * step; gx <= x1; gx += step)
        fprintf(f, "<line x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%.1f\"/><text x=\"%.1f\" y=\"%.1f\">%g</text>",
                (gx - x0) * s, (gx - x0) * s, H, (gx - x0) * s, H + 14, gx);
    for (double gy = ceil(y0 / step) * step; gy <= y1; gy += step)
        fprintf(f, "<line x1=\"0\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/><text x=\"-4\" y=\"%.1f\" "
                   "text-anchor=\"end\">%g</text>",
                (gy - y0) * s, W, (gy - y0) * s, (gy - y0) * s + 4, gy);
    fputs("</g>\n", f);
}

/* Each actor's path and its mark where it started (static actors: a square, left out outside the area). */
static void plot_actors(FILE *f, const run_data *d, double x0, double y0, double s, double W, double H)
{
    for (size_t i = 0; i < d->n_paths; i++) {
        const rd_path *p = &d->paths[i];
        if (!p->n)
            continue;
        const char *col = colour_of(d, i);
        fputs("<g class=\"actor\"><title>", f);
        esc(f, p->name);
        fputs(" (", f);
        esc(f, p->kind);
        fputs(")</title>", f);
        if (p->n > 1 && !p->is_static) {
            fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", col);
            for (size_t k = 0; k < p->n; k++)
                fprintf(f, "%s%.1f,%.1f", k ? " " : "", (p->pts[k].x - x0) * s, (p->pts[k].y - y0) * s);
            fputs("\"/>", f);
        }
        double sx = (p->pts[0].x - x0) * s, sy = (p->pts[0].y - y0) * s;
        if (p->is_static && (sx < 0 || sy < 0 || sx > W || sy > H)) {
            fputs("</g>\n", f);
            continue;
        }
        if (p->is_static)
            fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"6\" height=\"6\" fill=\"%s\"/>", sx - 3, sy - 3, col);
        else
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>", sx, sy, col);
        fputs("</g>\n", f);
    }
}

static void paths_plot(FILE *f, const run_data *d)
{
    double b[4];
    plot_bounds(d, b);
    double x0 = b[0], y0 = b[1], x1 = b[2], y1 = b[3];
    double s = fmin(PLOT_W / (x1 - x0), PLOT_H / (y1 - y0)), W = (x1 - x0) * s, H = (y1 - y0) * s;
    fputs("<section><h2>Paths, seen from above</h2>\n", f);
    fprintf(f, "<p class=\"note\">World x to the right, y down (CARLA's axes seen from above); %s. "
               "Red crosses: collisions.</p>\n",
            d->paths_from_recording ? "every actor from the recording" : "each sensor's mount from its stream");
    if (d->n_shapes)
        fprintf(f, "<p class=\"note\">%zu shapes of world.debug in their colours (every one drawn during the run, "
                   "whatever its life time)%s.</p>\n",
                d->n_shapes, d->shapes_left_out ? "; more were left out" : "");
    if (d->map[0]) {
        fputs("<p class=\"note\">Grey: the driving lanes of ", f);
        esc(f, d->map);
        fputs(".</p>\n", f);
    }
    fprintf(f, "<svg id=\"paths\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
               "viewBox=\"-50 -10 %.0f %.0f\">\n",
            W + 70, H + 40, W + 70, H + 40);
    fprintf(f, "<rect class=\"area\" x=\"0\" y=\"0\" width=\"%.1f\" height=\"%.1f\"/>\n", W, H);
    fprintf(f, "<clipPath id=\"frame\"><rect x=\"0\" y=\"0\" width=\"%.1f\" height=\"%.1f\"/></clipPath>\n", W, H);
    map_lanes(f, d, x0, y0, x1, y1, s);
    plot_grid(f, x0, y0, x1, y1, s, W, H);
    debug_shapes(f, d, x0, y0, s);
    plot_actors(f, d, x0, y0, s, W, H);
    for (size_t i = 0; i < d->n_events; i++) {
        const rd_event *e = &d->events[i];
        if (!isfinite(e->at.x) || !isfinite(e->at.y))
            continue;
        double ex = (e->at.x - x0) * s, ey = (e->at.y - y0) * s;
        fputs("<g class=\"collision\"><title>", f);
        esc(f, e->what);
        fprintf(f, "</title><path d=\"M%.1f %.1fl12 12m0 -12l-12 12\"/></g>\n", ex - 6, ey - 6);
    }
    fputs("</svg>\n<ul class=\"legend\">", f);
    for (size_t i = 0; i < d->n_paths; i++) {
        if (!d->paths[i].n || d->paths[i].is_static)
            continue;
        fprintf(f, "<li><span style=\"background:%s\"></span>", colour_of(d, i));
        esc(f, d->paths[i].name);
        fputs("</li>", f);
    }
    fputs("</ul>\n", f);
    collisions(f, d);
    fputs("</section>\n", f);
}

static void counts_plot(FILE *f, const run_data *d)
{
    const double label_w = 180, bars_w = 600, row_h = 26;
    /* bins of a round width (1, 2 or 5 times a power of ten), at most BINS of them */
    double t0 = d->t_min, span = d->t_max - d->t_min, bin = 1;
    if (span > 0) {
        double p = pow(10, floor(log10(span / BINS))), m = span / BINS / p;
        bin = p * (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10);
        t0 = floor(t0 / bin) * bin;
    }
    int nbins = span > 0 ? (int)ceil((d->t_max - t0) / bin + 1e-9) : 1;
    nbins = nbins < 1 ? 1 : nbins > BINS ? BINS : nbins;
    double H = row_h * (double)d->n_streams + 24;
    fputs("<section><h2>Messages over time</h2>\n", f);
    fprintf(f, "<p class=\"note\">Messages of each sensor per %.3g s of simulated time (each row scaled to its own "
               "highest bar; the total on the right).</p>\n", bin);
    fprintf(f, "<svg id=\"counts\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\">\n",
            label_w + bars_w + 80, H);
    for (size_t i = 0; i < d->n_streams; i++) {
        const rd_stream *s = &d->streams[i];
        unsigned bins[BINS] = {0}, top = 0;
        for (size_t k = 0; k < s->count; k++) {
            int b = span > 0 ? (int)((s->t[k] - t0) / bin) : 0;
            b = b < 0 ? 0 : b >= nbins ? nbins - 1 : b;
            bins[b]++;
            top = bins[b] > top ? bins[b] : top;
        }
        double y = row_h * (double)i;
        /* the sensor's name (a stream without messages has only its file's), its type on hover */
        fputs("<g class=\"sensor\"><title>", f);
        esc(f, s->type[0] ? s->type : "no messages");
        esc(f, s->note);
        fprintf(f, "</title><text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\"%s>", label_w - 8, y + 17,
                s->note[0] ? " class=\"cut\"" : "");
        if (s->sensor[0])
            esc(f, s->sensor);
        else
            fprintf(f, "%.*s", (int)(strlen(s->file) - strlen(".msgpack")), s->file);
        fputs("</text>", f);
        double bw = bars_w / nbins;
        for (int b = 0; b < nbins; b++)
            if (bins[b]) {
                double h = (row_h - 6) * bins[b] / top;
                fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>%u</title></rect>",
                        label_w + b * bw, y + row_h - 3 - h, bw > 2 ? bw - 1 : bw, h, bins[b]);
            }
        fprintf(f, "<text x=\"%.0f\" y=\"%.1f\">%zu</text></g>\n", label_w + bars_w + 8, y + 17, s->count);
    }
    double ya = row_h * (double)d->n_streams + 14;
    for (int k = 0; k <= 4; k++)
        fprintf(f, "<text class=\"axis\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.4g s</text>",
                label_w + k * bars_w / 4, ya, t0 + k * bin * nbins / 4);
    fputs("\n</svg></section>\n", f);
}

static void thumbnails(FILE *f, const run_data *d)
{
    bool any = false;
    for (size_t i = 0; i < d->n_streams; i++)
        any |= d->streams[i].n_thumbs > 0;
    if (!any)
        return;
    fputs("<section><h2>Cameras</h2>\n", f);
    for (size_t i = 0; i < d->n_streams; i++) {
        const rd_stream *s = &d->streams[i];
        if (!s->n_thumbs)
            continue;
        fputs("<h3>", f);
        esc(f, s->sensor);
        fputs(" <span class=\"type\">", f);
        esc(f, s->type);
        fprintf(f, ", %ux%u, %zu pictures</span></h3>\n<div class=\"strip\">", s->w, s->h, s->count);
        for (int k = 0; k < s->n_thumbs; k++) {
            fputs("<figure><img alt=\"frame\" src=\"data:image/png;base64,", f);
            base64(f, s->png[k], s->png_len[k]);
            fprintf(f, "\"><figcaption>frame %llu</figcaption></figure>", (unsigned long long)s->thumb_frame[k]);
        }
        fputs("</div>\n", f);
    }
    fputs("</section>\n", f);
}

static const char STYLE[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;background:#fafafa}"
    "h1{font-size:22px}h2{font-size:17px;margin-top:28px}h3{font-size:14px;margin:14px 0 4px}"
    "table{border-collapse:collapse}th{text-align:left;padding:2px 16px 2px 0;color:#555;font-weight:600}"
    "svg{background:#fff;border:1px solid #ddd}svg text{font-size:11px;fill:#444}"
    ".area{fill:#fff}.map polyline{fill:none;stroke:#e6e6e6;stroke-linejoin:round}.grid line{stroke:#eee}.collision path{stroke:#d00;stroke-width:3}"
    "#counts rect{fill:#4e79a7}#counts .cut{fill:#d00}.type{color:#888;fill:#888;font-size:11px}.note{color:#666;font-size:12px}"
    ".legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:4px 16px;font-size:12px}"
    ".legend span{display:inline-block;width:10px;height:10px;margin-right:4px}"
    ".strip{display:flex;flex-wrap:wrap;gap:6px}figure{margin:0}figcaption{font-size:11px;color:#666}"
    "img{display:block;image-rendering:auto}";

void sn_report_html(FILE *f, const run_data *d)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>sensim report: ", f);
    esc(f, d->dir);
    fprintf(f, "</title>\n<style>%s</style></head>\n<body>\n<h1>sensim run report</h1>\n", STYLE);
    summary(f, d);
    traffic_health(f, d);
    paths_plot(f, d);
    counts_plot(f, d);
    thumbnails(f, d);
    fputs("</body></html>\n", f);
}
