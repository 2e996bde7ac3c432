/* The layout of every public struct, pinned on this platform (x86_64 / aarch64 LP64), so a
** change of the ABI is always deliberate. A failure here means a struct crossing the plugin
** or library boundary changed size or a member moved. If that was meant: add members only at
** the end of a struct, bump SN_ABI_MINOR in sensim/abi.h (the major for anything else), keep
** the host reading older layouts (struct_size, strides, the class's abi_minor), and update
** this table from the printed values. */
#include <sensim/data.h>
#include <sensim/math.h>
#include <sensim/plugin.h>
#include <sensim/query.h>
#include <sensim/records.h>
#include <sensim/sensim.h>
#include <sensim/testworld.h>

#include <stddef.h>
#include <stdio.h>

static int fails, checks;

static void pin(const char *what, size_t got, size_t want)
{
    checks++;
    if (got != want) {
        fails++;
        fprintf(stderr, "FAIL layout: %s is %zu, pinned %zu: an ABI change; if deliberate, bump SN_ABI_MINOR "
                        "and update tests/unit/test_layout.c\n", what, got, want);
    }
}

#define S(T, size, align) pin("sizeof(" #T ")", sizeof(T), size), pin("_Alignof(" #T ")", _Alignof(T), align)
#define F(T, m, off) pin("offsetof(" #T ", " #m ")", offsetof(T, m), off)

int main(void)
{
    if (sizeof(void *) != 8 || sizeof(long) != 8) {
        fprintf(stderr, "layout: pinned for LP64 only; skipped\n");
        return 77;
    }
    /* abi.h */
    S(sn_abi_header, 8, 4);
    F(sn_abi_header, struct_size, 0);
    F(sn_abi_header, abi_major, 4);
    F(sn_abi_header, abi_minor, 6);
    /* attr.h */
    S(sn_attr_def, 80, 8);
    F(sn_attr_def, name, 0);
    F(sn_attr_def, type, 8);
    F(sn_attr_def, def, 16);
    F(sn_attr_def, recommended, 24);
    F(sn_attr_def, choices, 32);
    F(sn_attr_def, has_range, 40);
    F(sn_attr_def, min, 48);
    F(sn_attr_def, max, 56);
    F(sn_attr_def, unit, 64);
    F(sn_attr_def, doc, 72);
    /* attr.h */
    S(sn_value, 40, 8);
    F(sn_value, type, 0);
    F(sn_value, b, 4);
    F(sn_value, i, 8);
    F(sn_value, f, 16);
    F(sn_value, s, 24);
    F(sn_value, rgb, 32);
    /* types.h */
    S(sn_vec3, 24, 8);
    F(sn_vec3, x, 0);
    F(sn_vec3, y, 8);
    F(sn_vec3, z, 16);
    /* types.h */
    S(sn_rotation, 24, 8);
    F(sn_rotation, pitch, 0);
    F(sn_rotation, yaw, 8);
    F(sn_rotation, roll, 16);
    /* types.h */
    S(sn_transform, 48, 8);
    F(sn_transform, location, 0);
    F(sn_transform, rotation, 24);
    /* types.h */
    S(sn_bbox, 48, 8);
    F(sn_bbox, location, 0);
    F(sn_bbox, extent, 24);
    /* types.h */
    S(sn_vehicle_control, 32, 8);
    F(sn_vehicle_control, throttle, 0);
    F(sn_vehicle_control, steer, 8);
    F(sn_vehicle_control, brake, 16);
    F(sn_vehicle_control, hand_brake, 24);
    F(sn_vehicle_control, reverse, 25);
    /* types.h */
    S(sn_actor_info, 264, 8); /* 248 before wheel_steer_angle and light_state (ABI 1.5, second revision) */
    F(sn_actor_info, struct_size, 0);
    F(sn_actor_info, id, 4);
    F(sn_actor_info, parent_id, 8);
    F(sn_actor_info, kind, 12);
    F(sn_actor_info, type_id, 16);
    F(sn_actor_info, name, 24);
    F(sn_actor_info, role_name, 32);
    F(sn_actor_info, semantic_tag, 40);
    F(sn_actor_info, bounding_box, 48);
    F(sn_actor_info, transform, 96);
    F(sn_actor_info, velocity, 144);
    F(sn_actor_info, angular_velocity, 168);
    F(sn_actor_info, acceleration, 192);
    F(sn_actor_info, control, 216);
    F(sn_actor_info, wheel_steer_angle, 248);
    F(sn_actor_info, light_state, 256);
    /* types.h */
    S(sn_ray_hit, 104, 8); /* 72 up to ABI 1.4's first revision, 96 in 1.4: the host accepts all three */
    F(sn_ray_hit, struct_size, 0);
    F(sn_ray_hit, distance, 8);
    F(sn_ray_hit, point, 16);
    F(sn_ray_hit, normal, 40);
    F(sn_ray_hit, actor_id, 64);
    F(sn_ray_hit, semantic_tag, 68);
    F(sn_ray_hit, velocity, 72);
    F(sn_ray_hit, reflectivity, 96);
    pin("SN_RAY_HIT_SIZE_1_2", SN_RAY_HIT_SIZE_1_2, offsetof(sn_ray_hit, velocity));
    pin("SN_RAY_HIT_SIZE_VELOCITY", SN_RAY_HIT_SIZE_VELOCITY, offsetof(sn_ray_hit, reflectivity));
    pin("SN_RAY_HIT_SIZE_REFLECTIVITY", SN_RAY_HIT_SIZE_REFLECTIVITY, sizeof(sn_ray_hit));
    /* types.h */
    S(sn_geo_location, 24, 8);
    F(sn_geo_location, latitude, 0);
    F(sn_geo_location, longitude, 8);
    F(sn_geo_location, altitude, 16);
    /* types.h */
    S(sn_clock, 40, 8);
    F(sn_clock, frame, 0);
    F(sn_clock, timestamp, 8);
    F(sn_clock, dt, 16);
    F(sn_clock, time_ns, 24);
    F(sn_clock, dt_ns, 32);
    /* math.h */
    S(sn_mat3, 72, 8);
    F(sn_mat3, m, 0);
    /* math.h */
    S(sn_quat, 32, 8);
    F(sn_quat, w, 0);
    F(sn_quat, x, 8);
    F(sn_quat, y, 16);
    F(sn_quat, z, 24);
    /* host.h */
    S(sn_camera, 88, 8);
    F(sn_camera, struct_size, 0);
    F(sn_camera, transform, 8);
    F(sn_camera, width, 56);
    F(sn_camera, height, 60);
    F(sn_camera, fov, 64);
    F(sn_camera, near_clip, 72);
    F(sn_camera, far_clip, 80);
    /* host.h */
    S(sn_image, 48, 8);
    F(sn_image, struct_size, 0);
    F(sn_image, depth, 8);
    F(sn_image, bgra, 16);
    F(sn_image, tag, 24);
    F(sn_image, instance, 32);
    F(sn_image, samples, 40);
    /* host.h */
    S(sn_world_settings, 64, 8);
    F(sn_world_settings, struct_size, 0);
    F(sn_world_settings, gravity, 8);
    F(sn_world_settings, fixed_delta_seconds, 32);
    F(sn_world_settings, substep_delta_seconds, 40);
    F(sn_world_settings, substeps, 48);
    F(sn_world_settings, max_substeps, 52);
    F(sn_world_settings, max_substep_delta_time, 56);
    /* host.h */
    S(sn_kinematics, 152, 8);
    F(sn_kinematics, struct_size, 0);
    F(sn_kinematics, transform, 8);
    F(sn_kinematics, velocity, 56);
    F(sn_kinematics, acceleration, 80);
    F(sn_kinematics, angular_velocity, 104);
    F(sn_kinematics, angular_acceleration, 128);
    /* host.h */
    S(sn_host, 552, 8);
    F(sn_host, hdr, 0);
    F(sn_host, log, 8);
    F(sn_host, set_error, 16);
    F(sn_host, sensor_name, 24);
    F(sn_host, sensor_id, 32);
    F(sn_host, sensor_transform, 40);
    F(sn_host, clock, 48);
    F(sn_host, actor_count, 56);
    F(sn_host, actor_id_at, 64);
    F(sn_host, actor_get, 72);
    F(sn_host, ray_cast, 80);
    F(sn_host, random_u64, 88);
    F(sn_host, random_uniform, 96);
    F(sn_host, random_normal, 104);
    F(sn_host, write_key, 112);
    F(sn_host, write_nil, 120);
    F(sn_host, write_bool, 128);
    F(sn_host, write_int, 136);
    F(sn_host, write_uint, 144);
    F(sn_host, write_float, 152);
    F(sn_host, write_double, 160);
    F(sn_host, write_str, 168);
    F(sn_host, write_strn, 176);
    F(sn_host, write_bin, 184);
    F(sn_host, write_array, 192);
    F(sn_host, write_map, 200);
    F(sn_host, write_vec3, 208);
    F(sn_host, write_actor, 216);
    F(sn_host, render, 224);
    F(sn_host, render_at, 232);
    F(sn_host, sensor_transform_at, 240);
    F(sn_host, actor_attribute, 248);
    F(sn_host, actor_attribute_at, 256);
    F(sn_host, class_state, 264);
    F(sn_host, world_settings, 272);
    F(sn_host, sensor_mount, 280);
    F(sn_host, sensor_kinematics, 288);
    F(sn_host, random_seed, 296);
    F(sn_host, geo_reference, 304);
    F(sn_host, world_to_geo, 312);
    F(sn_host, ray_batch, 320);
    F(sn_host, sweep_sphere, 328);
    F(sn_host, overlap_sphere, 336);
    F(sn_host, write_packed, 344);
    F(sn_host, has_map, 352);
    F(sn_host, map_waypoint, 360);
    F(sn_host, map_next, 368);
    F(sn_host, map_previous, 376);
    F(sn_host, map_side_lane, 384);
    F(sn_host, map_marks_crossed, 392);
    F(sn_host, ray_batch_at, 400);
    F(sn_host, tick_interval_ns, 408);
    F(sn_host, attribute_given, 416);
    F(sn_host, render_motion, 424);
    F(sn_host, sensor_transform_prev, 432);
    F(sn_host, parallel_for, 440);
    F(sn_host, weather, 448);
    /* ABI 1.6 */
    F(sn_host, overlap_sphere_nearest, 456);
    F(sn_host, overlap_cone, 464);
    F(sn_host, actor_route, 472);
    F(sn_host, landmarks_ahead, 480);
    F(sn_host, v2x_join, 488);
    F(sn_host, v2x_send, 496);
    F(sn_host, v2x_received, 504);
    F(sn_host, scene_motion, 512); /* ABI 1.6, second revision */
    F(sn_host, render_layer_at, 520); /* ABI 1.6, third revision */
    F(sn_host, write_bin_room, 528); /* ABI 1.6, fourth revision */
    F(sn_host, ray_batch_compact, 536); /* ABI 1.6, fifth revision */
    F(sn_host, render_motion_grid, 544); /* ABI 1.6, sixth revision */
    S(sn_motion_grid, 32, 8);
    F(sn_motion_grid, struct_size, 0);
    F(sn_motion_grid, div, 4);
    F(sn_motion_grid, depth, 8);
    F(sn_motion_grid, instance, 16);
    F(sn_motion_grid, motion, 24);
    /* v2x.h (ABI 1.6) */
    S(sn_v2x_params, 96, 8);
    F(sn_v2x_params, struct_size, 0);
    F(sn_v2x_params, transmit_power, 8);
    F(sn_v2x_params, receiver_sensitivity, 16);
    F(sn_v2x_params, frequency_ghz, 24);
    F(sn_v2x_params, combined_antenna_gain, 32);
    F(sn_v2x_params, d_ref, 40);
    F(sn_v2x_params, path_loss_exponent, 48);
    F(sn_v2x_params, filter_distance, 56);
    F(sn_v2x_params, scenario, 64);
    F(sn_v2x_params, path_loss_model, 68);
    F(sn_v2x_params, use_etsi_fading, 72);
    F(sn_v2x_params, custom_fading_stddev, 80);
    F(sn_v2x_params, channel_id, 88);
    S(sn_v2x_message, 56, 8);
    F(sn_v2x_message, struct_size, 0);
    F(sn_v2x_message, sender_id, 4);
    F(sn_v2x_message, station_id, 8);
    F(sn_v2x_message, los, 12);
    F(sn_v2x_message, power, 16);
    F(sn_v2x_message, frame, 24);
    F(sn_v2x_message, time_ns, 32);
    F(sn_v2x_message, payload, 40);
    F(sn_v2x_message, size, 48);
    S(sn_v2x_medium_ops, 40, 8);
    F(sn_v2x_medium_ops, hdr, 0);
    F(sn_v2x_medium_ops, join, 8);
    F(sn_v2x_medium_ops, leave, 16);
    F(sn_v2x_medium_ops, send, 24);
    F(sn_v2x_medium_ops, received, 32);
    /* map.h (ABI 1.4): plain values, frozen */
    S(sn_lane_marking, 16, 8);
    F(sn_lane_marking, type, 0);
    F(sn_lane_marking, color, 1);
    F(sn_lane_marking, lane_change, 2);
    F(sn_lane_marking, width, 8);
    S(sn_waypoint, 136, 8);
    F(sn_waypoint, id, 0);
    F(sn_waypoint, road_id, 8);
    F(sn_waypoint, section_id, 12);
    F(sn_waypoint, lane_id, 16);
    F(sn_waypoint, s, 24);
    F(sn_waypoint, transform, 32);
    F(sn_waypoint, lane_width, 80);
    F(sn_waypoint, lane_type, 88);
    F(sn_waypoint, junction_id, 92);
    F(sn_waypoint, is_junction, 96);
    F(sn_waypoint, lane_change, 97);
    F(sn_waypoint, left_marking, 104);
    F(sn_waypoint, right_marking, 120);
    S(sn_landmark, 176, 8); /* ABI 1.6 */
    F(sn_landmark, struct_size, 0);
    F(sn_landmark, kind, 4);
    F(sn_landmark, actor_id, 8);
    F(sn_landmark, signal_id, 12);
    F(sn_landmark, state, 16);
    F(sn_landmark, limit, 24);
    F(sn_landmark, distance, 32);
    F(sn_landmark, line, 40);
    S(sn_mark_crossing, 48, 8);
    F(sn_mark_crossing, marking, 0);
    F(sn_mark_crossing, location, 16);
    F(sn_mark_crossing, road_id, 40);
    F(sn_mark_crossing, lane_id, 44);
    S(sn_ray, 56, 8);
    F(sn_ray, origin, 0);
    F(sn_ray, direction, 24);
    F(sn_ray, max_distance, 48);
    S(sn_ray_query, 80, 8);
    F(sn_ray_query, struct_size, 0);
    F(sn_ray_query, ray_size, 4);
    F(sn_ray_query, result_size, 8);
    F(sn_ray_query, hit_size, 12);
    F(sn_ray_query, mode, 16);
    F(sn_ray_query, ignore_ids, 24);
    F(sn_ray_query, n_ignore, 32);
    F(sn_ray_query, tag_mask, 36);
    F(sn_ray_query, kind_mask, 40);
    F(sn_ray_query, hits, 48);
    F(sn_ray_query, max_hits, 56);
    /* ABI 1.6 */
    pin("SN_RAY_QUERY_SIZE_1_5", SN_RAY_QUERY_SIZE_1_5, offsetof(sn_ray_query, max_hits) + 8);
    F(sn_ray_query, ray_ignore, 64);
    F(sn_ray_query, overlap_size, 72);
    S(sn_overlap, 40, 8);
    F(sn_overlap, actor_id, 0);
    F(sn_overlap, semantic_tag, 4);
    F(sn_overlap, distance, 8);
    F(sn_overlap, point, 16);
    S(sn_ray_result, 112, 8);
    S(sn_ray_compact, 56, 8); /* ABI 1.6, fifth revision */
    F(sn_ray_compact, fields, 4);
    F(sn_ray_compact, hit, 8);
    F(sn_ray_compact, distance, 16);
    F(sn_ray_compact, actor_id, 24);
    F(sn_ray_compact, semantic_tag, 32);
    F(sn_ray_compact, normal, 40);
    F(sn_ray_compact, reflectivity, 48);
    pin("SN_RAY_RESULT_SIZE_1_2", SN_RAY_RESULT_SIZE_1_2, offsetof(sn_ray_result, hit) + SN_RAY_HIT_SIZE_1_2);
    pin("SN_RAY_RESULT_SIZE_1_4", SN_RAY_RESULT_SIZE_1_4, offsetof(sn_ray_result, hit) + SN_RAY_HIT_SIZE_VELOCITY);
    /* records.h */
    S(sn_point_xyzi, 16, 4);
    F(sn_point_xyzi, intensity, 12);
    S(sn_semantic_point, 24, 4);
    F(sn_semantic_point, cos_inc_angle, 12);
    F(sn_semantic_point, object_idx, 16);
    F(sn_semantic_point, object_tag, 20);
    S(sn_radar_detection, 16, 4);
    F(sn_radar_detection, azimuth, 4);
    F(sn_radar_detection, altitude, 8);
    F(sn_radar_detection, depth, 12);
    F(sn_ray_result, n_hits, 0);
    F(sn_ray_result, n_found, 4);
    F(sn_ray_result, hit, 8);
    /* plugin.h */
    S(sn_collision, 80, 8);
    F(sn_collision, self_id, 0);
    F(sn_collision, other_id, 4);
    F(sn_collision, normal_impulse, 8);
    F(sn_collision, location, 32);
    F(sn_collision, normal, 56);
    /* plugin.h */
    S(sn_actor_event, 8, 4);
    F(sn_actor_event, actor_id, 0);
    F(sn_actor_event, parent_id, 4);
    /* plugin.h */
    S(sn_event, 96, 8);
    F(sn_event, struct_size, 0);
    F(sn_event, type, 4);
    F(sn_event, frame, 8);
    F(sn_event, u, 16);
    /* plugin.h */
    S(sn_method_def, 16, 8);
    F(sn_method_def, name, 0);
    F(sn_method_def, doc, 8);
    /* plugin.h */
    S(sn_sensor_class, 208, 8);
    F(sn_sensor_class, hdr, 0);
    F(sn_sensor_class, blueprint, 8);
    F(sn_sensor_class, doc, 16);
    F(sn_sensor_class, phases, 24);
    F(sn_sensor_class, events, 28);
    F(sn_sensor_class, attrs, 32);
    F(sn_sensor_class, n_attrs, 40);
    F(sn_sensor_class, attr_def_size, 44);
    F(sn_sensor_class, methods, 48);
    F(sn_sensor_class, n_methods, 56);
    F(sn_sensor_class, create, 64);
    F(sn_sensor_class, destroy, 72);
    F(sn_sensor_class, set, 80);
    F(sn_sensor_class, attach, 88);
    F(sn_sensor_class, tick, 96);
    F(sn_sensor_class, on_event, 104);
    F(sn_sensor_class, pending, 112);
    F(sn_sensor_class, serialize, 120);
    F(sn_sensor_class, call, 128);
    F(sn_sensor_class, method_def_size, 136);
    F(sn_sensor_class, value_size, 140);
    F(sn_sensor_class, class_create, 144);
    F(sn_sensor_class, class_destroy, 152);
    F(sn_sensor_class, class_tick, 160);
    F(sn_sensor_class, log_reader, 168);
    F(sn_sensor_class, method_args, 176);
    /* ABI 1.6: declared record layouts */
    F(sn_sensor_class, records, 184);
    F(sn_sensor_class, n_records, 192);
    F(sn_sensor_class, rec_layout_size, 196);
    F(sn_sensor_class, v2x_medium, 200);
    S(sn_rec_field, 24, 8);
    F(sn_rec_field, name, 0);
    F(sn_rec_field, type, 8);
    F(sn_rec_field, offset, 12);
    F(sn_rec_field, unit, 16);
    S(sn_rec_layout, 48, 8);
    F(sn_rec_layout, key, 0);
    F(sn_rec_layout, name, 8);
    F(sn_rec_layout, size, 16);
    F(sn_rec_layout, fields, 24);
    F(sn_rec_layout, n_fields, 32);
    F(sn_rec_layout, field_size, 36);
    F(sn_rec_layout, doc, 40);
    S(sn_method_args, 12, 4);
    F(sn_method_args, min_args, 0);
    F(sn_method_args, max_args, 4);
    F(sn_method_args, max_arg_bytes, 8);
    /* plugin.h */
    S(sn_plugin_lib, 40, 8);
    F(sn_plugin_lib, hdr, 0);
    F(sn_plugin_lib, name, 8);
    F(sn_plugin_lib, version, 16);
    F(sn_plugin_lib, n_classes, 24);
    F(sn_plugin_lib, classes, 32);
    /* sensim.h */
    S(sn_error, 1028, 4);
    F(sn_error, status, 0);
    F(sn_error, msg, 4);
    /* sensim.h */
    S(sn_engine_options, 48, 8);
    F(sn_engine_options, plugin_dir, 0);
    F(sn_engine_options, threads, 8);
    F(sn_engine_options, seed_set, 12);
    F(sn_engine_options, seed, 16);
    F(sn_engine_options, quiet_plugins, 24);
    F(sn_engine_options, log, 32);
    F(sn_engine_options, log_user, 40);
    /* sensim.h */
    S(sn_message, 56, 8);
    F(sn_message, sensor, 0);
    F(sn_message, type_id, 8);
    F(sn_message, sensor_id, 16);
    F(sn_message, frame, 24);
    F(sn_message, timestamp, 32);
    F(sn_message, data, 40);
    F(sn_message, size, 48);
    /* sensim.h */
    S(sn_attribute, 16, 8);
    F(sn_attribute, key, 0);
    F(sn_attribute, value, 8);
    /* sensim.h */
    S(sn_actor_desc, 96, 8);
    F(sn_actor_desc, struct_size, 0);
    F(sn_actor_desc, blueprint, 8);
    F(sn_actor_desc, name, 16);
    F(sn_actor_desc, transform, 24);
    F(sn_actor_desc, parent_id, 72);
    F(sn_actor_desc, id, 76);
    F(sn_actor_desc, attributes, 80);
    F(sn_actor_desc, n_attributes, 88);
    /* sensim.h */
    S(sn_walker_control, 32, 8);
    F(sn_walker_control, direction, 0);
    F(sn_walker_control, speed, 24);
    /* sensim.h */
    S(sn_testworld_options, 112, 8);
    F(sn_testworld_options, struct_size, 0);
    F(sn_testworld_options, seed, 8);
    F(sn_testworld_options, fixed_delta_seconds, 16);
    F(sn_testworld_options, max_substep_delta_time, 24);
    F(sn_testworld_options, threads, 32);
    F(sn_testworld_options, log, 40);
    F(sn_testworld_options, log_user, 48);
    F(sn_testworld_options, georeference, 56);
    F(sn_testworld_options, map_path, 80); /* SDK 1.6 */
    F(sn_testworld_options, map_xml, 88);
    F(sn_testworld_options, map_size, 96);
    F(sn_testworld_options, host_size, 104); /* SDK 1.6, fourth revision: a host table cut to an older one */
    S(sn_run_stats, 96, 8);
    F(sn_run_stats, struct_size, 0);
    F(sn_run_stats, frames, 8);
    F(sn_run_stats, sim_time, 16);
    F(sn_run_stats, messages, 24);
    F(sn_run_stats, sensors, 32);
    F(sn_run_stats, live_actors, 36);
    F(sn_run_stats, live_sensors, 40);
    F(sn_run_stats, time_world, 48);
    F(sn_run_stats, time_sensors, 56);
    F(sn_run_stats, time_output, 64);
    F(sn_run_stats, frames_planned, 72); /* appended (issue 24): struct_size-versioned, as the timers were */
    F(sn_run_stats, time_serialize, 80); /* appended (issue 25): struct_size-versioned, no ABI bump */
    F(sn_run_stats, time_write, 88);
    /* sensim.h */
    S(sn_blueprint_info, 80, 8);
    F(sn_blueprint_info, struct_size, 0);
    F(sn_blueprint_info, id, 8);
    F(sn_blueprint_info, kind, 16);
    F(sn_blueprint_info, doc, 24);
    F(sn_blueprint_info, plugin, 32);
    F(sn_blueprint_info, n_attrs, 40);
    F(sn_blueprint_info, attrs, 48);
    F(sn_blueprint_info, n_records, 56); /* SDK 1.6 */
    F(sn_blueprint_info, records, 64);
    F(sn_blueprint_info, rec_layout_size, 72);
    /* sensim.h */
    S(sn_plugin_info, 72, 8);
    F(sn_plugin_info, struct_size, 0);
    F(sn_plugin_info, path, 8);
    F(sn_plugin_info, loaded, 16);
    F(sn_plugin_info, reason, 24);
    F(sn_plugin_info, name, 32);
    F(sn_plugin_info, version, 40);
    F(sn_plugin_info, abi_major, 48);
    F(sn_plugin_info, abi_minor, 52);
    F(sn_plugin_info, n_blueprints, 56);
    F(sn_plugin_info, blueprints, 64);
    /* sensim.h: a world without a scene file; data.h: typed readers of messages */
    S(sn_world_options, 64, 8);
    F(sn_world_options, fixed_delta_seconds, 8);
    F(sn_world_options, seed, 32);
    F(sn_world_options, map, 48);
    F(sn_world_options, no_ground, 56);
    S(sn_data_str, 16, 8);
    S(sn_data_header, 112, 8);
    F(sn_data_header, frame, 8);
    F(sn_data_header, transform, 64);
    S(sn_data_image, 40, 8);
    F(sn_data_image, pixels, 24);
    F(sn_data_image, depth, 32);
    S(sn_data_actor, 48, 8);
    S(sn_data_collision, 176, 8);
    F(sn_data_collision, other_actor, 56);
    F(sn_data_collision, normal, 152);
    S(sn_dvs_event, 24, 8);
    S(sn_data_events, 48, 8);
    F(sn_data_events, events, 32);
    F(sn_data_events, labels, 40);
    S(sn_data_points, 48, 8);
    F(sn_data_points, records, 24);
    F(sn_data_points, horizontal_angle, 40);
    fprintf(stderr, "%d checks, %d failed\n", checks, fails);
    return fails ? 1 : 0;
}
