/* Rain (docs/rendering.md "Rain"): the RGB camera's streaks (plugins/common/rain.c) and the
** puddles of precipitation_deposits (engine/render/puddles.c) on their own. */
#include "../../engine/render/puddles.h"
#include "../../plugins/common/rain.h"
#include "../check.h"

#include <stdlib.h>
#include <string.h>

enum { W = 320, H = 180 };

static uint8_t img[W * H * 4];

static void grey(void)
{
    for (int i = 0; i < W * H; i++)
        img[4 * i] = img[4 * i + 1] = img[4 * i + 2] = 90, img[4 * i + 3] = 255;
}

/* Changed pixels, and how often a changed pixel's neighbour down-right vs down-left changed too. */
static int changed(int *down_right, int *down_left)
{
    int n = 0;
    *down_right = *down_left = 0;
    for (int y = 0; y + 1 < H; y++)
        for (int x = 1; x + 1 < W; x++) {
            if (img[4 * (y * W + x)] == 90)
                continue;
            n++;
            *down_right += img[4 * ((y + 1) * W + x + 1)] != 90;
            *down_left += img[4 * ((y + 1) * W + x - 1)] != 90;
        }
    return n;
}

int main(void)
{
    sn_rotation level = {0, 0, 0}; /* looking along +x: world +y is the image's right */
    int dr, dl;
    grey();
    rain_draw(img, NULL, W, H, 90, level, 0, 0, 1);
    CHECK(changed(&dr, &dl) == 0, "precipitation 0 draws nothing");
    grey();
    rain_draw(img, NULL, W, H, 90, level, 20, 0, 1);
    int n20 = changed(&dr, &dl);
    int darker = 0;
    for (int i = 0; i < W * H; i++)
        darker += img[4 * i] < 90 || img[4 * i + 1] < 90 || img[4 * i + 2] < 90;
    CHECK(n20 > 200 && darker == 0, "precipitation 20: %d streak pixels, all lighter than the scene (%d darker)", n20,
          darker);
    CHECK(abs(dr - dl) < (dr + dl) / 4 + 5, "no wind: streaks fall straight (down-right %d, down-left %d)", dr, dl);
    grey();
    rain_draw(img, NULL, W, H, 90, level, 80, 0, 1);
    int n80 = changed(&dr, &dl);
    CHECK(n80 > 3 * n20, "precipitation 80 against 20: %d against %d streak pixels", n80, n20);
    grey();
    rain_draw(img, NULL, W, H, 90, level, 80, 100, 1);
    changed(&dr, &dl);
    CHECK(2 * dr > 3 * dl, "wind toward +y bends the streaks down to the right (down-right %d, down-left %d)", dr, dl);
    uint8_t a[sizeof img];
    memcpy(a, img, sizeof img);
    grey();
    rain_draw(img, NULL, W, H, 90, level, 80, 100, 1);
    CHECK(memcmp(a, img, sizeof img) == 0, "the same seed draws the same drops");
    grey();
    rain_draw(img, NULL, W, H, 90, level, 80, 100, 2);
    CHECK(memcmp(a, img, sizeof img) != 0, "another seed, other drops");

    /* occlusion by depth: the sky (the far plane) hides nothing; a surface nearer than the nearest
    ** drop (RAIN_NEAR) hides every streak; on the left half alone, exactly the left half's */
    static float depth[W * H];
    for (int i = 0; i < W * H; i++)
        depth[i] = 1000;
    grey();
    rain_draw(img, NULL, W, H, 90, level, 80, 100, 1);
    memcpy(a, img, sizeof img);
    grey();
    rain_draw(img, depth, W, H, 90, level, 80, 100, 1);
    CHECK(memcmp(a, img, sizeof img) == 0, "a depth of 1000 m everywhere (the sky) hides no streak");
    for (int i = 0; i < W * H; i++)
        depth[i] = i % W < W / 2 ? (float)(RAIN_NEAR - 0.01) : 1000;
    grey();
    rain_draw(img, depth, W, H, 90, level, 80, 100, 1);
    int left = 0, right_same = 1, right_n = 0;
    for (int i = 0; i < W * H; i++) {
        if (i % W < W / 2)
            left += img[4 * i] != 90;
        else
            right_same &= memcmp(img + 4 * i, a + 4 * i, 4) == 0, right_n += a[4 * i] != 90;
    }
    CHECK(left == 0 && right_same && right_n > 200,
          "a wall nearer than every drop on the left half: %d streak pixels there (0), the right half as without "
          "depth (%d streak pixels)", left, right_n);
    /* a wall at 5 m: only drops nearer than 5 m show over it, so fewer streak pixels, each of
    ** them also one of the streaks without the wall */
    for (int i = 0; i < W * H; i++)
        depth[i] = 5;
    grey();
    rain_draw(img, depth, W, H, 90, level, 80, 0, 1);
    int n5 = 0, extra = 0;
    uint8_t b[sizeof img];
    memcpy(b, img, sizeof img);
    grey();
    rain_draw(img, NULL, W, H, 90, level, 80, 0, 1);
    int nall = 0;
    for (int i = 0; i < W * H; i++) {
        n5 += b[4 * i] != 90, nall += img[4 * i] != 90;
        extra += b[4 * i] != 90 && img[4 * i] == 90;
    }
    CHECK(n5 > 0 && n5 < nall && extra == 0, "a wall at 5 m: %d streak pixels against %d without it, %d not among them",
          n5, nall, extra);

    /* puddles: none without deposits, more with more, never over 45 % of the ground */
    double cover[3] = {0, 0, 0}, dep[3] = {0, 0.5, 1};
    for (int k = 0; k < 3; k++) {
        int n = 0;
        for (double x = -200; x < 200; x += 0.5)
            for (double y = -200; y < 200; y += 0.5, n++)
                cover[k] += sn_puddle(dep[k], (sn_vec3){x, y, 0});
        cover[k] /= n;
    }
    CHECK(cover[0] == 0, "deposits 0: no puddle");
    CHECK(cover[1] > 0.05 && cover[2] > cover[1] + 0.05 && cover[2] < 0.5,
          "puddles cover %.3f of the ground at deposits 50, %.3f at 100", cover[1], cover[2]);
    CHECK(sn_puddle(1, (sn_vec3){12.25, -3.5, 0}) == sn_puddle(1, (sn_vec3){12.25, -3.5, 5}),
          "a puddle is a function of x, y");
    return CHECK_DONE();
}
