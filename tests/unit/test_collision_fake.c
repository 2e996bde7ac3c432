/* The collision sensor's own tests on the SDK's fake host (sensim/testing.h: the engine's test
** world): the built plugin is loaded as a third party's test would load theirs, collisions are
** injected into the engine's collision phase. argv[1]: path of sensim_collision.so */
#define SN_TESTING_IMPLEMENTATION
#include <sensim/testing.h>

#include "../check.h"

int main(int argc, char **argv)
{
    if (argc < 2)
        return fprintf(stderr, "usage: test_collision_fake PLUGIN.so\n"), 2;
    sn_fake *f = sn_fake_new(7);
    sn_plugin_entry_fn entry = sn_fake_open(f, argv[1]);
    CHECK(entry != NULL, "open: %s", sn_fake_error(f));
    if (!entry)
        return sn_fake_free(f), CHECK_DONE();

    /* Actors where the engine accepts them: nothing overlaps (the old fake took any pose). */
    uint32_t car = sn_fake_spawn_actor(f, "vehicle.sedan", "car", (sn_transform){{10, 0, 0}, {0, 90, 0}}, 0,
                                       (const char *[]){"role_name=hero", "extent=2.4,1,0.7", NULL});
    uint32_t wall = sn_fake_add_actor(f, "static.building", SN_TAG_BUILDING, (sn_transform){{-10, 0, 5}, {0, 0, 0}},
                                      (sn_vec3){5, 5, 5});
    uint32_t walker = sn_fake_spawn_actor(f, "walker.pedestrian", "bob", (sn_transform){{0, 20, 0.9}, {0, 0, 0}}, 0,
                                          (const char *[]){"role_name=bob", "extent=0.3,0.3,0.9", NULL});
    uint32_t rack = sn_fake_spawn_actor(f, "static.prop.box", NULL, (sn_transform){{-2, 0, 1.5}, {0, 0, 0}}, car,
                                        (const char *[]){"extent=0.2,0.5,0.1", NULL});
    CHECK(car && wall && walker && rack, "actors: %s", sn_fake_error(f));

    /* Blueprint and attributes are checked by the engine. */
    CHECK(!sn_fake_spawn(f, entry, "sensor.other.collisions", NULL, car), "an unknown blueprint spawns");
    CHECK_CONTAINS(sn_fake_error(f), "unknown blueprint 'sensor.other.collisions'");
    CHECK(!sn_fake_spawn(f, entry, "sensor.other.collision", (const char *[]){"range=3", NULL}, car),
          "an unknown attribute is accepted");
    CHECK_CONTAINS(sn_fake_error(f), "range");

    /* Standing in the world, it warns that it will never report anything. */
    uint32_t logs = sn_fake_log_count(f);
    sn_fake_sensor *lonely = sn_fake_spawn(f, entry, "sensor.other.collision", NULL, 0);
    CHECK(lonely && sn_fake_log_count(f) == logs + 1, "no warning without a parent");
    CHECK_CONTAINS(sn_fake_last_log(f), "never reports");

    sn_fake_sensor *s = sn_fake_spawn_named(f, entry, "sensor.other.collision", "crash", NULL, car,
                                            (sn_transform){{0, 0, 0.5}, {0, 0, 0}});
    CHECK(s != NULL, "spawn: %s", sn_fake_error(f));
    if (!s)
        return sn_fake_free(f), CHECK_DONE();

    /* Frame 1: the same pair twice is one event, the first one kept (CARLA's per-frame
    ** registry); a second other actor is a second event. */
    CHECK(sn_fake_begin_frame(f) == SN_OK, "%s", sn_fake_error(f));
    sn_fake_collision(s, car, wall, (sn_vec3){-1500, 0, 0});
    sn_fake_collision(s, car, wall, (sn_vec3){-700, 0, 0});
    sn_fake_collision(s, car, walker, (sn_vec3){0, 80, 0});
    CHECK(sn_fake_end_frame(f) == SN_OK, "%s", sn_fake_error(f));
    CHECK(sn_fake_message_count(s) == 2, "frame 1: %u messages, want 2", sn_fake_message_count(s));
    CHECK(sn_fake_number(s, 0, "frame") == 1, "frame key");
    CHECK(!strcmp(sn_fake_string(s, 0, "sensor"), "crash"), "the sensor's name, not its blueprint");
    /* the header transform: the car's pose with the mount (the old fake put it at the parent's origin) */
    CHECK(fabs(sn_fake_number(s, 0, "transform.location.0") - 10) < 1e-9 &&
              fabs(sn_fake_number(s, 0, "transform.location.2") - 0.5) < 1e-9 &&
              fabs(sn_fake_number(s, 0, "transform.rotation.1") - 90) < 1e-9,
          "sensor follows its parent with its mount: %s", sn_fake_json(s, 0));
    CHECK(sn_fake_number(s, 0, "actor.id") == car, "actor.id");
    CHECK(!strcmp(sn_fake_string(s, 0, "actor.type_id"), "vehicle.sedan"), "actor.type_id");
    CHECK(sn_fake_number(s, 0, "actor.semantic_tag") == SN_TAG_CAR, "actor tag");
    CHECK(sn_fake_number(s, 0, "other_actor.id") == wall, "other_actor.id");
    CHECK(sn_fake_number(s, 0, "other_actor.semantic_tag") == SN_TAG_BUILDING, "other tag");
    CHECK(sn_fake_number(s, 0, "normal_impulse.0") == -1500, "the first contact of the frame is the one kept");
    CHECK(sn_fake_length(s, 0, "normal_impulse") == 3, "impulse is [x, y, z]");
    CHECK(sn_fake_has(s, 0, "location") && sn_fake_has(s, 0, "normal"), "location and normal");
    CHECK(sn_fake_number(s, 1, "other_actor.id") == walker, "second event is the walker");
    CHECK(sn_fake_number(s, 1, "normal_impulse.1") == 80, "walker impulse");
    CHECK_CONTAINS(sn_fake_json(s, 1), "\"type\":\"sensor.other.collision\"");
    /* each actor as CARLA's carla.Actor, with every attribute it was spawned with (the old fake
    ** knew role_name only) and its box in its own frame */
    CHECK_CONTAINS(sn_fake_json(s, 1), "\"other_actor\":{\"id\":3,\"type_id\":\"walker.pedestrian\",\"semantic_tag\":12,"
                                       "\"semantic_tags\":[12],\"parent\":null,\"role_name\":\"bob\",\"attributes\":{\"role_name\":\"bob\","
                                       "\"color\":\"220,20,60\",\"semantic_tag\":\"Pedestrian\",\"texture\":\"none\",\"checker_size\":\"1\","
                                       "\"extent\":\"0.3,0.3,0.9\",\"mass\":\"80\",\"speed\":\"1.4\",\"reflectivity\":\"0.3\"},"
                                       "\"bounding_box\":{\"location\":[0,0,0],\"extent\":[0.29999999999999999,0.29999999999999999,0.90000000000000002]}}");
    CHECK(!strcmp(sn_fake_string(s, 0, "actor.role_name"), "hero"), "actor.role_name");
    CHECK(!strcmp(sn_fake_string(s, 0, "actor.attributes.role_name"), "hero"), "actor.attributes.role_name");
    CHECK(!strcmp(sn_fake_string(s, 0, "actor.attributes.mass"), "1500"), "actor.attributes.mass");
    /* the engine puts a vehicle's box over its origin, as CARLA (the old test set it by hand) */
    CHECK(sn_fake_number(s, 0, "actor.bounding_box.location.2") == 0.7, "actor.bounding_box.location");
    CHECK(sn_fake_number(s, 0, "actor.bounding_box.extent.0") == 2.4, "actor.bounding_box.extent");
    CHECK(sn_fake_length(s, 0, "actor.semantic_tags") == 1 && sn_fake_number(s, 0, "actor.semantic_tags.0") == SN_TAG_CAR,
          "actor.semantic_tags");
    CHECK(sn_fake_message_count(lonely) == 0, "the sensor without parent got nothing");

    /* Frame 2: an attached actor names its parent. */
    sn_fake_begin_frame(f);
    sn_fake_collision(s, car, rack, (sn_vec3){0, 0, 5});
    CHECK(sn_fake_end_frame(f) == SN_OK, "%s", sn_fake_error(f));
    CHECK(sn_fake_message_count(s) == 1 && sn_fake_number(s, 0, "other_actor.parent") == car, "other_actor.parent");

    /* Frame 3: no contact, no message; a zero impulse is no collision (as from physics). */
    sn_fake_begin_frame(f);
    sn_fake_collision(s, car, wall, (sn_vec3){0, 0, 0});
    sn_fake_end_frame(f);
    CHECK(sn_fake_message_count(s) == 0, "frame 3: %u messages, want 0", sn_fake_message_count(s));

    /* Frame 4: the registry was pruned, the same pair reports again. */
    sn_fake_begin_frame(f);
    sn_fake_collision(s, car, walker, (sn_vec3){0, 50, 0});
    CHECK(sn_fake_end_frame(f) == SN_OK, "%s", sn_fake_error(f));
    CHECK(sn_fake_message_count(s) == 1, "frame 4: %u messages, want 1", sn_fake_message_count(s));
    CHECK(sn_fake_number(s, 0, "frame") == 4, "frame 4");
    CHECK(sn_fake_number(s, 0, "timestamp") == 0.2, "timestamp = 4 * 0.05");
    /* The engine destroys actors only at the start of a frame (the old fake let a test remove
    ** one between the events and serialize, which no run does): gone, it cannot collide. */
    CHECK(sn_fake_remove_actor(f, walker) == SN_OK, "%s", sn_fake_error(f));
    CHECK(sn_fake_collision(s, car, walker, (sn_vec3){0, 50, 0}) == SN_E_NOT_FOUND, "a collision with a gone actor");
    CHECK_CONTAINS(sn_fake_error(f), "is not a live actor");
    CHECK(sn_fake_step(f) == SN_OK && sn_fake_message_count(s) == 0, "frame 5: nothing");

    /* Its parent destroyed, the sensor goes with it (destroy is called: ASan watches). */
    CHECK(sn_fake_remove_actor(f, car) == SN_OK, "%s", sn_fake_error(f));
    sn_actor_info info = {.struct_size = sizeof info};
    CHECK(sn_fake_actor_get(f, sn_fake_sensor_id(s), &info) == SN_E_NOT_FOUND, "the sensor outlived its parent");
    CHECK(sn_fake_step(f) == SN_OK, "%s", sn_fake_error(f));
    sn_fake_free(f);
    return CHECK_DONE();
}
