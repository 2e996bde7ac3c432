/* strpool.c — see strpool.h. */
#include "strpool.h"

#include <stdlib.h>
#include <string.h>

#define BLOCK 4096

typedef struct sn_strblock {
    struct sn_strblock *next;
    size_t used, cap;
    char text[]; /* cap bytes */
} sn_strblock;

char *sn_strpool_add(sn_strpool *p, const char *s)
{
    char *found = p->no_index ? NULL : sn_strmap_get(&p->index, s);
    if (found)
        return found;
    size_t n = strlen(s) + 1;
    sn_strblock *b = p->blocks;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > BLOCK - sizeof *b ? n : BLOCK - sizeof *b;
        if (!(b = malloc(sizeof *b + cap)))
            return NULL;
        b->next = p->blocks, b->used = 0, b->cap = cap;
        p->blocks = b;
    }
    char *copy = memcpy(b->text + b->used, s, n);
    b->used += n;
    if (!p->no_index && !sn_strmap_put(&p->index, copy, copy))
        return NULL; /* the copy stays in the block, freed with the pool */
    return copy;
}

void sn_strpool_index_drop(sn_strpool *p)
{
    sn_strmap_free(&p->index);
    p->no_index = true;
}

void sn_strpool_free(sn_strpool *p)
{
    for (sn_strblock *b = p->blocks, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    sn_strmap_free(&p->index);
    memset(p, 0, sizeof *p);
}
