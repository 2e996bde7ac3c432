/* standalone.h — without libFuzzer (no clang): a main() that runs every file given (the corpus)
** once through the target's LLVMFuzzerTestOneInput. Included last by each fuzz target. */
#ifndef SN_FUZZ_STANDALONE_H
#define SN_FUZZ_STANDALONE_H
#ifdef SN_FUZZ_STANDALONE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f)
            continue;
        uint8_t *b = malloc(1 << 20);
        size_t n = b ? fread(b, 1, 1 << 20, f) : 0;
        fclose(f);
        if (b)
            LLVMFuzzerTestOneInput(b, n);
        free(b);
    }
    return 0;
}
#endif
#endif
