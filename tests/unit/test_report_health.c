/* The report page's traffic health and collision summary (engine/cli/report_html.c) on a
** run's data made here: 1 205 walker-walker collisions are one row of the summary by pair of
** kinds and none of the list; 150 collisions of vehicles are listed up to 100, with the 50 left
** out counted; run.json's minutes are rows of the health table with their totals. */
#include "../check.h"

#include "../../engine/cli/report_html.h"

#include <stdlib.h>

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

int main(void)
{
    run_data d;
    memset(&d, 0, sizeof d);
    snprintf(d.dir, sizeof d.dir, "run");
    rd_stream s;
    memset(&s, 0, sizeof s);
    snprintf(s.file, sizeof s.file, "crash.msgpack");
    d.streams = &s, d.n_streams = 1;
    d.n_events = 1205 + 150 + 3;
    d.events = calloc(d.n_events, sizeof *d.events);
    for (size_t i = 0; i < d.n_events; i++) {
        rd_event *e = &d.events[i];
        e->at = (rd_pt){(double)i, 0};
        e->frame = 10 + i, e->last_frame = 10 + i + (i % 3); /* 1 to 3 frames each */
        const char *a = i < 1205 ? "walker" : i < 1355 ? "vehicle" : "static", *b = i < 1205 ? "walker" : "walker";
        if (i >= 1280 && i < 1355)
            b = "vehicle";
        snprintf(e->kind_a, sizeof e->kind_a, "%s", i >= 1355 ? "walker" : a);
        snprintf(e->kind_b, sizeof e->kind_b, "%s", i >= 1355 ? "static" : b);
        snprintf(e->what, sizeof e->what, "event %zu", i);
    }
    rd_health w[2] = {{{0, 60, 40, 1, 3, 0, 2, 1, 4, 7}}, {{60, 15, 40, 5, 9, 1, 0, 0, 0, 2}}};
    d.has_health = true, d.health = w, d.n_health = 2;
    d.health_totals = (rd_health){{0, 75, 80, 6, 12, 1, 2, 1, 4, 9}};
    char *page = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&page, &len);
    sn_report_html(f, &d);
    fclose(f);
    CHECK(strstr(page, "<tr><td>walker and walker</td><td>1205</td><td>2409</td></tr>") != NULL,
          "walker-walker collisions are one row: 1205 of them, 2409 frames in contact");
    CHECK(strstr(page, "<tr><td>vehicle and walker</td><td>75</td>") != NULL, "vehicle-walker: 75");
    CHECK(strstr(page, "<tr><td>vehicle and vehicle</td><td>75</td>") != NULL, "vehicle-vehicle: 75");
    CHECK(strstr(page, "<tr><td>static and walker</td><td>3</td>") != NULL, "walker-static: 3, kinds in one order");
    CHECK(count(page, ": event ") == 100, "100 collisions of vehicles listed: %zu", count(page, ": event "));
    CHECK(strstr(page, ": event 1205<") && !strstr(page, ": event 0<") && !strstr(page, ": event 1357<"),
          "the listed ones are the vehicles'");
    CHECK(strstr(page, "50 more collisions of vehicles not listed") != NULL, "the 50 left out are counted");
    CHECK(strstr(page, "<tr><th>0&ndash;60 s</th><td>40</td><td>1</td><td>3</td><td>0</td><td>2</td><td>1</td>"
                       "<td>4</td><td>7</td></tr>") != NULL, "the first minute's row");
    CHECK(strstr(page, "<tr><th>60&ndash;75 s</th><td>40</td><td>5</td>") != NULL, "the second (partial) minute");
    CHECK(strstr(page, "<tr><th>all</th><td>80</td><td>6</td><td>12</td><td>1</td>") != NULL, "the totals");
    /* without a health section and without collisions: neither part */
    d.has_health = false, d.n_events = 0;
    free(page);
    f = open_memstream(&page, &len);
    sn_report_html(f, &d);
    fclose(f);
    CHECK(!strstr(page, "traffic-health") && !strstr(page, "collision-kinds"), "nothing to show, nothing shown");
    free(page);
    free(d.events);
    return CHECK_DONE();
}
