/* fog_exp.h — e^x in vector lanes for fog and the sky's fog (fog_lanes.h, shade_lanes.h): simd4.h's
** v4_exp with a degree-5 minimax polynomial on the reduced range instead of its degree-7 Taylor
** one (relative error 1.06e-7, the float's own rounding 6e-8; 4 operations fewer), and the
** small-argument form fog's start height takes. Fog's bound against the exact path
** (tests/unit/test_fog_fast.c, 2e-6 in T) holds with either. Before including: VF, VI, V(name) as
** for fog_lanes.h. Included once a translation unit. */

/* e^x, x clamped to [-87.3, 88.3] where 2^n stays a normal float: n = round(x / ln2) by the
** 1.5 x 2^23 trick, r = x - n ln2 in two parts (Cody-Waite), e^r by the polynomial, 2^n from the
** exponent bits. */
static inline VF fog_exp(VF x)
{
    const VF magic = V(splat)(12582912.0f);
    x = V(min)(V(splat)(88.3f), V(max)(V(splat)(-87.3f), x));
    VF t = x * V(splat)(1.44269504f) + magic, n = t - magic;
    VI ni = (VI)t - (VI)magic;
    VF r = x - n * V(splat)(0.693359375f);
    r = r - n * V(splat)(-2.12194440e-4f);
    /* 1 + r + r^2 q(r), q of degree 3 by Remez on |r| <= ln2/2 for the least relative error */
    VF p = V(splat)(8.312525228e-3f);
    p = p * r + V(splat)(4.189011455e-2f);
    p = p * r + V(splat)(1.666711420e-1f);
    p = p * r + V(splat)(4.999923110e-1f);
    p = p * r + V(splat)(1.0f);
    p = p * r + V(splat)(1.0f);
    return p * (VF)((ni + 127) << 23);
}

/* e^a for |a| <= 0.1 by its Taylor polynomial to degree 4: remainder under 0.1^5/120 = 8.4e-8
** relative, no reduction, no clamp. */
static inline VF fog_exp_small(VF a)
{
    VF p = V(splat)(1.0f / 24);
    p = p * a + V(splat)(1.0f / 6);
    p = p * a + V(splat)(0.5f);
    p = p * a + V(splat)(1.0f);
    return p * a + V(splat)(1.0f);
}

/* e^a for -0.35 < a <= 0 by its Taylor polynomial to degree 7: remainder under 0.35^8 / 8! =
** 5.6e-9, no reduction, no clamp; by Estrin's scheme (pairs, then a^2 and a^4), so its chain of
** dependent operations is 5 long, not Horner's 14: it ends fog's and the sky's chain. */
static inline VF fog_exp_taylor7(VF a)
{
    VF a2 = a * a, a4 = a2 * a2;
    VF q01 = V(splat)(1.0f) + a, q23 = V(splat)(0.5f) + a * V(splat)(1.0f / 6);
    VF q45 = V(splat)(1.0f / 24) + a * V(splat)(1.0f / 120), q67 = V(splat)(1.0f / 720) + a * V(splat)(1.0f / 5040);
    return (q01 + a2 * q23) + a4 * (q45 + a2 * q67);
}

/* (1 - e^-x) / x = sum of (-x)^n / (n + 1)! for |x| < 0.5 to degree 8 (remainder under 0.5^9 /
** 10! = 5.4e-10), by Estrin's scheme as above; no cancellation where x is small. */
static inline VF fog_h_series(VF x)
{
    VF y = -x, y2 = y * y, y4 = y2 * y2, y8 = y4 * y4;
    VF q01 = V(splat)(1.0f) + y * V(splat)(0.5f), q23 = V(splat)(1.0f / 6) + y * V(splat)(1.0f / 24);
    VF q45 = V(splat)(1.0f / 120) + y * V(splat)(1.0f / 720), q67 = V(splat)(1.0f / 5040) + y * V(splat)(1.0f / 40320);
    return (q01 + y2 * q23) + y4 * (q45 + y2 * q67) + y8 * V(splat)(1.0f / 362880);
}
