/* Two vehicles where one road crosses over another (docs/traffic.md, "Autopilot on a map": the
** leader). Found on CARLA's Town04 under 500 autopilots in hybrid mode: two cars spawned where road
** 39 (11 m up) crosses over road 47 each took the other as its leader (the corridor test was in
** the plane) and stood for good from the first frame; the queues behind them grew into the
** interchange until 96 % of the town stood. Here: road 1 along +x on the ground, road 3 along +y
** 8 m above it (a deck with no ramps), one-way lanes of 3.5 m whose centres cross at the origin.
** "low" stands on road 1 with its front short of the crossing, "high" on road 3 right above it,
** each one's box in the other's corridor in the plane. Before the fix both stood for the 30 s.
** Asserted: both drive on (each more than 40 m), each on its own level (low below 1.5 m, high
** above 7 m: neither fell or was lifted), and the same at 1 and 2 threads, byte for byte; the
** same in hybrid mode. argv[1]: temp folder, argv[2]: plugins. */
#include "../check.h"
#include "../traffic_pair.h"

#define LANES                                                                                                       \
    "<lanes><laneSection s=\"0\"><center><lane id=\"0\" type=\"none\" level=\"false\"/></center><right>"           \
    "<lane id=\"-1\" type=\"driving\" level=\"false\"><link></link>"                                                 \
    "<width sOffset=\"0\" a=\"3.5\" b=\"0\" c=\"0\" d=\"0\"/></lane></right></laneSection></lanes>"
#define ROAD(id, x, y, hdg, z)                                                                                      \
    "<road name=\"r" id "\" length=\"300\" id=\"" id "\" junction=\"-1\"><link></link>"                             \
    "<planView><geometry s=\"0\" x=\"" x "\" y=\"" y "\" hdg=\"" hdg "\" length=\"300\"><line/></geometry></planView>" \
    "<elevationProfile><elevation s=\"0\" a=\"" z "\" b=\"0\" c=\"0\" d=\"0\"/></elevationProfile>" LANES "</road>\n"

/* Lane -1 lies right of the reference line: road 1's line at y = 1.75, road 3's at x = -1.75, so
** the lanes' centres are y = 0 and x = 0 (OpenDRIVE's frame; sensim's flips y). */
static const char overpass_xml[] = "<?xml version=\"1.0\" standalone=\"yes\"?>\n<OpenDRIVE>\n"
                                   "<header revMajor=\"1\" revMinor=\"4\" name=\"overpass\" version=\"1\"/>\n"
                                   ROAD("1", "-150", "1.75", "0", "0")
                                   ROAD("3", "-1.75", "-150", "1.5707963267948966", "8") "</OpenDRIVE>\n";

typedef struct result {
    double travelled[2], low_max, high_min;
    uint64_t hash;
} result;

static void drive(const char *plugins, const char *path, int threads, bool hybrid, result *r)
{
    tp_pair p;
    tp_open(&p, plugins, path, threads, hybrid, "low", "high");
    *r = (result){.low_max = -INFINITY, .high_min = INFINITY};
    for (uint64_t f = 0; f <= 600; f++) {
        tp_frame(&p, f);
        r->low_max = fmax(r->low_max, p.a[0].transform.location.z);
        r->high_min = fmin(r->high_min, p.a[1].transform.location.z);
    }
    r->travelled[0] = p.travelled[0], r->travelled[1] = p.travelled[1], r->hash = p.hash;
    tp_close(&p);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_traffic_overpass TMP PLUGINS\n");
        return 2;
    }
    const char *tmp = argv[1], *plugins = argv[2];
    char map_path[1024], scene[2048], scene_path[1024];
    snprintf(map_path, sizeof map_path, "%s", tu_write(tmp, "overpass.xodr", overpass_xml));
    /* sensim's frame flips OpenDRIVE's y: road 1 drives along +x (yaw 0), road 3 along -y (yaw
    ** -90). low's centre 3 m short of the crossing, high's centre 3 m short of it on the deck:
    ** in the plane each box reaches 0.7 m into the other's path, inside its corridor. */
    snprintf(scene, sizeof scene,
             "settings: {fixed_delta_seconds: 0.05, seed: 3}\nmap: %s\n"
             "actors:\n  - {name: ground, blueprint: static.ground}\n"
             "  - name: low\n    blueprint: vehicle.sedan\n"
             "    transform: {location: [-3, 0, 0.3], rotation: [0, 0, 0]}\n    autopilot: {}\n"
             "  - name: high\n    blueprint: vehicle.sedan\n"
             "    transform: {location: [0, 3, 8.3], rotation: [0, -90, 0]}\n    autopilot: {}\n",
             map_path);
    snprintf(scene_path, sizeof scene_path, "%s", tu_write(tmp, "overpass.yaml", scene));

    result one, two, hy;
    drive(plugins, scene_path, 1, false, &one);
    fprintf(stderr, "low %.1f m, high %.1f m travelled; low's highest z %.2f, high's lowest %.2f\n", one.travelled[0],
            one.travelled[1], one.low_max, one.high_min);
    CHECK(one.travelled[0] > 40 && one.travelled[1] > 40, "both drive on: low %.1f m, high %.1f m", one.travelled[0],
          one.travelled[1]);
    CHECK(one.low_max < 1.5 && one.high_min > 7, "each stays on its level: low up to %.2f m, high down to %.2f m",
          one.low_max, one.high_min);
    drive(plugins, scene_path, 2, false, &two);
    CHECK(one.hash == two.hash, "--threads 1 and 2 agree: %016llx vs %016llx", (unsigned long long)one.hash,
          (unsigned long long)two.hash);
    drive(plugins, scene_path, 1, true, &hy);
    fprintf(stderr, "hybrid: low %.1f m, high %.1f m travelled; low's highest z %.2f, high's lowest %.2f\n",
            hy.travelled[0], hy.travelled[1], hy.low_max, hy.high_min);
    CHECK(hy.travelled[0] > 40 && hy.travelled[1] > 40, "hybrid mode: both drive on: low %.1f m, high %.1f m",
          hy.travelled[0], hy.travelled[1]);
    CHECK(hy.low_max < 1.5 && hy.high_min > 7, "hybrid mode: each stays on its level: low up to %.2f m, high down to %.2f m",
          hy.low_max, hy.high_min);
    result hy2;
    drive(plugins, scene_path, 2, true, &hy2);
    CHECK(hy.hash == hy2.hash, "hybrid mode: --threads 1 and 2 agree");
    return CHECK_DONE();
}
