/* The collision sensor's own tests on the SDK's fake host (sensim/testing.h): no engine, no
** physics; the built plugin is loaded as a third party's test would load theirs.
** argv[1]: path of sensim_collision.so */
#define SN_TESTING_IMPLEMENTATION
#include <sensim/testing.h>

#include "../check.h"

static const sn_transform at_origin = {{0, 0, 0}, {0, 0, 0}};

int main(int argc, char **argv)
{
    if (argc < 2)
        return fprintf(stderr, "usage: test_collision_fake PLUGIN.so\n"), 2;
    sn_fake *f = sn_fake_new(7);
    sn_plugin_entry_fn entry = sn_fake_open(f, argv[1]);
    CHECK(entry != NULL, "open: %s", sn_fake_error(f));
    if (!entry)
        return CHECK_DONE();

    sn_transform car_pose = {{10, 0, 0.7}, {0, 90, 0}};
    uint32_t car = sn_fake_add_actor(f, "vehicle.sedan", SN_TAG_CAR, car_pose, (sn_vec3){2.4, 1, 0.7});
    uint32_t wall = sn_fake_add_actor(f, "static.building", SN_TAG_BUILDING, at_origin, (sn_vec3){5, 5, 5});
    uint32_t walker = sn_fake_add_actor(f, "walker.pedestrian", SN_TAG_PEDESTRIAN, at_origin, (sn_vec3){.3, .3, .9});
    uint32_t rack = sn_fake_add_actor(f, "static.prop.box", SN_TAG_STATIC, at_origin, (sn_vec3){.2, .5, .1});
    sn_fake_actor(f, car)->role_name = "hero";
    sn_fake_actor(f, car)->bounding_box.location = (sn_vec3){0, 0, 0.7}; /* a CARLA vehicle's box over its origin */
    sn_fake_actor(f, walker)->role_name = "bob";
    sn_fake_actor(f, rack)->parent_id = car;

    /* Blueprint and attributes are checked as the engine checks them. */
    CHECK(!sn_fake_spawn(f, entry, "sensor.other.collisions", NULL, car), "an unknown blueprint spawns");
    CHECK_CONTAINS(sn_fake_error(f), "no blueprint 'sensor.other.collisions'");
    CHECK(!sn_fake_spawn(f, entry, "sensor.other.collision", (const char *[]){"range=3", NULL}, car),
          "an unknown attribute is accepted");
    CHECK_CONTAINS(sn_fake_error(f), "has no attribute 'range=3'");

    /* Standing in the world, it warns that it will never report anything. */
    uint32_t logs = sn_fake_log_count(f);
    sn_fake_sensor *lonely = sn_fake_spawn(f, entry, "sensor.other.collision", NULL, 0);
    CHECK(lonely && sn_fake_log_count(f) == logs + 1, "no warning without a parent");
    CHECK_CONTAINS(sn_fake_last_log(f), "never reports");

    sn_fake_sensor *s = sn_fake_spawn(f, entry, "sensor.other.collision", NULL, car);
    CHECK(s != NULL, "spawn: %s", sn_fake_error(f));
    if (!s)
        return sn_fake_free(f), CHECK_DONE();

    /* Frame 1: the same pair twice (two substeps' contacts) is one event, the first one kept
    ** (CARLA's per-frame registry); a second other actor is a second event. */
    CHECK(sn_fake_begin_frame(f) == SN_OK, "%s", sn_fake_error(f));
    sn_fake_collision(s, car, wall, (sn_vec3){-1500, 0, 0});
    sn_fake_collision(s, car, wall, (sn_vec3){-700, 0, 0});
    sn_fake_collision(s, car, walker, (sn_vec3){0, 80, 0});
    CHECK(sn_fake_end_frame(f) == SN_OK, "%s", sn_fake_error(f));
    CHECK(sn_fake_message_count(s) == 2, "frame 1: %u messages, want 2", sn_fake_message_count(s));
    CHECK(sn_fake_number(s, 0, "frame") == 1, "frame key");
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
    /* each actor as CARLA's carla.Actor: tags as a list too, parent (None: nil), role name,
    ** attributes (the fake host knows only role_name), bounding box in the actor's frame */
    CHECK_CONTAINS(sn_fake_json(s, 1), "\"other_actor\":{\"id\":3,\"type_id\":\"walker.pedestrian\",\"semantic_tag\":12,"
                                       "\"semantic_tags\":[12],\"parent\":null,\"role_name\":\"bob\",\"attributes\":{\"role_name\":\"bob\"},"
                                       "\"bounding_box\":{\"location\":[0,0,0],\"extent\":[0.29999999999999999,0.29999999999999999,0.90000000000000002]}}");
    CHECK(!strcmp(sn_fake_string(s, 0, "actor.role_name"), "hero"), "actor.role_name");
    CHECK(!strcmp(sn_fake_string(s, 0, "actor.attributes.role_name"), "hero"), "actor.attributes.role_name");
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

    /* Frame 3: no contact, no message. */
    sn_fake_begin_frame(f);
    sn_fake_end_frame(f);
    CHECK(sn_fake_message_count(s) == 0, "frame 3: %u messages, want 0", sn_fake_message_count(s));

    /* Frame 4: the registry was pruned, the same pair reports again; an actor destroyed
    ** before serialize is still described (the sensor copied it at event time). */
    sn_fake_begin_frame(f);
    sn_fake_collision(s, car, walker, (sn_vec3){0, 50, 0});
    sn_fake_remove_actor(f, walker);
    CHECK(sn_fake_end_frame(f) == SN_OK, "%s", sn_fake_error(f));
    CHECK(sn_fake_message_count(s) == 1, "frame 3: %u messages, want 1", sn_fake_message_count(s));
    CHECK(sn_fake_number(s, 0, "frame") == 4, "frame 4");
    const char *role = sn_fake_string(s, 0, "other_actor.role_name");
    CHECK(role && !strcmp(role, "bob"), "a destroyed actor keeps its role name: %s", role ? role : "(none)");
    CHECK(sn_fake_number(s, 0, "other_actor.bounding_box.extent.2") == 0.9, "and its bounding box");
    const char *type = sn_fake_string(s, 0, "other_actor.type_id");
    CHECK(type && !strcmp(type, "walker.pedestrian"), "a destroyed actor keeps its type_id: %s", type ? type : "(none)");
    CHECK(sn_fake_number(s, 0, "timestamp") == 0.2, "timestamp = 4 * 0.05");

    sn_fake_free(f);
    return CHECK_DONE();
}
