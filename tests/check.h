/* check.h — the smallest test harness: CHECK(cond, fmt, ...) records a failure and goes on;
** CHECK_DONE() prints the tally and gives main's exit status. */
#ifndef SN_TEST_CHECK_H
#define SN_TEST_CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int check_failures, check_count;

#define CHECK(cond, ...)                                                          \
    do {                                                                          \
        check_count++;                                                            \
        if (!(cond)) {                                                            \
            check_failures++;                                                     \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);       \
            fprintf(stderr, __VA_ARGS__);                                         \
            fputc('\n', stderr);                                                  \
        }                                                                         \
    } while (0)

#define CHECK_NEAR(a, b, tol, what) \
    CHECK(fabs((double)(a) - (double)(b)) <= (tol), "%s: %.9g vs %.9g (tol %g)", what, (double)(a), (double)(b), (double)(tol))

#define CHECK_CONTAINS(hay, needle) \
    CHECK(strstr((hay), (needle)) != NULL, "'%s' does not contain '%s'", (hay), (needle))

#define CHECK_DONE()                                                                        \
    (fprintf(stderr, "%d checks, %d failed\n", check_count, check_failures), check_failures ? 1 : 0)

#endif
