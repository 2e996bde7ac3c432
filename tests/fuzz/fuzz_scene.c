/*
** fuzz_scene.c — libFuzzer target for the scene loader (engine/scene): the bytes are a scene
** file, loaded with and without an override; every refusal must be one sentence naming the file.
** Any crash, hang, leak or sanitizer report is a bug. tests/fuzz/run_fuzz.sh builds it with
** clang; without clang, -DSN_FUZZ_STANDALONE runs the corpus once.
*/
#include "../../engine/scene/scene.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/sn_fuzz_scene_%d.yaml", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    static const char *const sets[] = {"settings.frames=7", "actors.0.transform.location=[1, 2, 3]"};
    for (int k = 0; k < 2; k++) {
        sn_scene s;
        sn_error err = {0};
        sn_status st = sn_scene_load_with(&s, path, sets, k ? 2 : 0, &err);
        if (st && (!err.msg[0] || strchr(err.msg, '\n')))
            abort(); /* an error is one line that says something */
        sn_scene_free(&s);
    }
    remove(path);
    return 0;
}

#include "standalone.h"
