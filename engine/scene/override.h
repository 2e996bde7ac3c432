/* override.h — `--set PATH=VALUE` applied to a parsed scene document. */
#ifndef SN_SCENE_OVERRIDE_H
#define SN_SCENE_OVERRIDE_H

#include "yamldoc.h"

/*
** Replaces (or adds) the value at PATH: names joined by '.'; in a list (actors, sensors, a
** route) an entry is addressed by its `name:` or by its index. VALUE is YAML ("0.7", "[1, 2, 3]",
** "{throttle: 1}", "" the empty string). Missing mapping keys are created, so the schema then
** judges them (an unknown key is refused there, naming the --set). `set` must outlive the
** document (its nodes point to it). Errors say "SCENE: --set SET: what".
*/
sn_status sn_ydoc_override(sn_ydoc *doc, const char *scene, const char *set, sn_error *err);

#endif
