/* lin_bytes.c — the tables of lin_bytes.h. */
#include "lin_bytes.h"

#include <math.h>

void sn_lin_bytes_init(sn_lin_bytes *t)
{
    for (int i = 0; i < 256; i++)
        t->lin[i] = (uint32_t)lround(65535 * pow(i / 255.0, 2.2));
    for (int i = 0; i < 255; i++)
        t->mid2[i] = t->lin[i] + t->lin[i + 1];
    t->mid2[255] = UINT32_MAX;
    for (int k = 0, b = 0; k <= 4096; k++) {
        while (b < 255 && t->mid2[b] <= (uint32_t)k * 32)
            b++;
        t->guess[k] = (uint8_t)b;
    }
}
