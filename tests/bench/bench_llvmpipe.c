/* sensim's renderer beside Mesa's llvmpipe (OpenGL 4.5 core on EGL's surfaceless platform, the
** software rasteriser a headless GL application would get) on the same triangles: spheres of
** 960 triangles (sensim's own tessellation, world frame) filling an 800x600 view of 90 degrees,
** at 110 k, 1.2 M and 5 M triangles (5 M only with SN_BENCH_5M=1: about a minute), 1 and 2
** threads (sensim's pool; LP_NUM_THREADS for llvmpipe, whose vertex stage also runs on the
** calling thread). Two frames each:
**   depth: depth only, read back as floats (sensim: sn_image.depth);
**   rgb+shadow: a 1024^2 shadow map from the sun, then colour with a 3x3 filtered lookup,
**     read back as RGBA (sensim: its RGB camera's frame with shadows, anti_aliasing 1).
** The camera alternates between two poses 0.01 degrees apart, so neither side reuses a frame.
** llvmpipe runs in a child process per thread count (LP_NUM_THREADS is read when its screen is
** made) and gets its geometry uploaded once (static VBO, one draw call per pass): its best case.
** Prints sensim / llvmpipe time with both absolute times (best wall time of 5 runs, and the
** process's CPU time per frame, which a loaded machine disturbs less), and sensim's phase profile (render.h:
** setup = queueing and triangle setup, shadow = the shadow map's setup and drawing, draw =
** rasterising and shading; on one thread triangles are drawn as they are set up, so setup holds
** the rasterising and draw is shading alone). Also checks
** that both see the same thing: the share of pixels whose depths agree within 1 %.
** argv[1]: temp folder. */
#include "../../engine/render/mesh.h"
#include "../../engine/sim/engine.h"
#include "../testutil.h"

#include "best_ms.h"

#define GL_GLEXT_PROTOTYPES
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/gl.h>
#include <GL/glext.h>

#include <sys/wait.h>
#include <unistd.h>

enum { W = 800, H = 600, SHADOW = 1024, REPS = 3 };

static double cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

/* Best wall ms of stmt (best_ms.h) and, in *cpu, the process's CPU ms per statement over those
** runs (every thread's, llvmpipe's included): the work done, which a loaded machine disturbs less. */
#define MEASURE(stmt, cpu)                                              \
    ({                                                                  \
        double c0_ = cpu_ms(), ms_ = BEST_MS(stmt, REPS);               \
        *(cpu) = (cpu_ms() - c0_) / (5 * REPS);                         \
        ms_;                                                            \
    })

static void must(sn_status st, const sn_error *err)
{
    if (st) {
        fprintf(stderr, "bench_llvmpipe: %s\n", err->msg);
        exit(1);
    }
}

/* A scene of n spheres on a grid of 4 layers filling the view from the origin down +x. */
static sn_engine *spheres(const char *tmp, int n)
{
    int side = (int)ceil(sqrt(n / 4.0));
    double d = 10, s = 1.7 * d / side; /* the nearest layer spans +-0.85 d: inside the view */
    char *scene = malloc((size_t)n * 160 + 128);
    int len = sprintf(scene, "actors:\n");
    for (int i = 0; i < n; i++)
        len += sprintf(scene + len,
                       "  - {blueprint: static.prop.sphere, transform: {location: [%.4f, %.4f, %.4f]}, attributes: {radius: %.4f}}\n",
                       d + s * (i / (side * side)), -0.85 * d + s * (0.5 + i % side), -0.85 * d * 0.75 + 0.75 * s * (0.5 + (i / side) % side),
                       0.4 * s);
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = "", .quiet_plugins = true};
    sn_engine *e = sn_engine_create(&o, &err);
    if (!e)
        must(SN_E_NOMEM, &err);
    must(sn_engine_load_scene(e, tu_write(tmp, "llvmpipe.yaml", scene), &err), &err);
    free(scene);
    must(sn_engine_step(e, &err), &err);
    return e;
}

/* The world's sphere triangles as GL buffers: vertices (world xyz) and indices. */
typedef struct geometry {
    float *v;
    uint32_t *idx;
    size_t n_v, n_idx;
} geometry;

static geometry gather(const sn_engine *e)
{
    const sn_mesh *m = sn_mesh_get(SN_SHAPE_SPHERE);
    geometry g = {0};
    size_t n = 0;
    for (size_t i = 0; i < e->world.n_actors; i++)
        n += e->world.actors[i]->shape == SN_SHAPE_SPHERE;
    g.v = malloc(n * m->n_v * 3 * sizeof *g.v);
    g.idx = malloc(n * m->n_t * 3 * sizeof *g.idx);
    for (size_t i = 0; i < e->world.n_actors; i++) {
        const sn_actor *a = e->world.actors[i];
        if (a->shape != SN_SHAPE_SPHERE)
            continue;
        sn_vec3 pos;
        sn_quat q;
        sn_actor_pose_at(&e->world, a, 1.0, &pos, &q);
        sn_mat3 R = sn_mat3_from_quat(q);
        sn_vec3 c = sn_v3_add(pos, sn_mat3_apply(&R, a->ph->bbox.location)), x = a->ph->bbox.extent;
        for (uint32_t k = 0; k < m->n_t; k++)
            for (int j = 0; j < 3; j++)
                g.idx[g.n_idx++] = (uint32_t)g.n_v + m->t[k][j];
        for (uint32_t k = 0; k < m->n_v; k++) {
            sn_vec3 p = sn_v3_add(c, sn_mat3_apply(&R, sn_v3(x.x * m->v[k][0], x.y * m->v[k][1], x.z * m->v[k][2])));
            float *o = g.v + 3 * (g.n_v++);
            o[0] = (float)p.x, o[1] = (float)p.y, o[2] = (float)p.z;
        }
    }
    return g;
}

static sn_camera camera(int frame)
{
    return (sn_camera){sizeof(sn_camera), {{0, 0, 0}, {0, (frame & 1) * 0.01, 0}}, W, H, 90, 0.1, 1000};
}

/* ---- llvmpipe ---- */

/* Column-major 4x4: world -> clip for sensim's camera (x forward, y right, z up; GL's eye looks
** down -z with y up, so eye = (y, z, -x) of the camera frame). */
static void camera_matrix(const sn_camera *cam, float out[16])
{
    sn_mat3 R = sn_mat3_from_rotation(cam->transform.rotation);
    double t = tan(cam->fov * SN_DEG / 2), tv = t * cam->height / cam->width, n = cam->near_clip, f = cam->far_clip;
    double rows[3][4]; /* eye = rows * (p, 1) */
    const int axis[3] = {1, 2, 0};
    const double sign[3] = {1, 1, -1};
    for (int r = 0; r < 3; r++) {
        sn_vec3 c = sn_mat3_col(&R, axis[r]);
        rows[r][0] = sign[r] * c.x, rows[r][1] = sign[r] * c.y, rows[r][2] = sign[r] * c.z;
        rows[r][3] = -sign[r] * sn_v3_dot(c, cam->transform.location);
    }
    double P[4][4] = {{1 / t, 0, 0, 0}, {0, 1 / tv, 0, 0}, {0, 0, -(f + n) / (f - n), -2 * f * n / (f - n)}, {0, 0, -1, 0}};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            double s = P[i][3] * (j == 3);
            for (int k = 0; k < 3; k++)
                s += P[i][k] * rows[k][j];
            out[4 * j + i] = (float)s;
        }
}

static GLuint shader(GLenum kind, const char *src)
{
    GLuint s = glCreateShader(kind);
    glShaderSource(s, 1, &src, NULL);
    glCompileShader(s);
    GLint ok;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[1024];
        glGetShaderInfoLog(s, sizeof log, NULL, log);
        fprintf(stderr, "bench_llvmpipe: shader: %s\n", log);
        exit(1);
    }
    return s;
}

static GLuint program(const char *vs, const char *fs)
{
    GLuint p = glCreateProgram();
    glAttachShader(p, shader(GL_VERTEX_SHADER, vs));
    glAttachShader(p, shader(GL_FRAGMENT_SHADER, fs));
    glLinkProgram(p);
    return p;
}

static const char *VS = "#version 330 core\nlayout(location = 0) in vec3 p; uniform mat4 mvp; out vec3 wp;\n"
                        "void main() { wp = p; gl_Position = mvp * vec4(p, 1); }\n";
static const char *FS_DEPTH = "#version 330 core\nvoid main() {}\n";
static const char *FS_LIT =
    "#version 330 core\nin vec3 wp; uniform mat4 light; uniform vec3 sun; uniform sampler2DShadow sm; out vec4 c;\n"
    "void main() {\n"
    "  vec3 n = normalize(cross(dFdx(wp), dFdy(wp)));\n"
    "  if (dot(n, sun) < 0.0) n = -n;\n"
    "  vec4 l = light * vec4(wp, 1); vec3 s = l.xyz * 0.5 + 0.5; s.z -= 0.002;\n"
    "  float vis = 0.0; vec2 texel = vec2(1.0 / 1024.0);\n"
    "  for (int j = -1; j <= 1; j++) for (int i = -1; i <= 1; i++) vis += texture(sm, vec3(s.xy + vec2(i, j) * texel, s.z));\n"
    "  float lam = max(dot(n, sun), 0.0) * vis / 9.0;\n"
    "  c = vec4(vec3(0.7, 0.5, 0.3) * (0.35 + 0.75 * lam), 1);\n"
    "}\n";

typedef struct gl_peer {
    GLuint vao, prog_depth, prog_lit, fbo_depth, fbo_rgb, fbo_shadow, shadow_tex;
    GLsizei n_idx;
    float light[16], sun[3];
} gl_peer;

static void gl_context(void)
{
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_display = (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    EGLDisplay d = get_display ? get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL) : EGL_NO_DISPLAY;
    EGLint major, minor, n = 0;
    EGLConfig config;
    const EGLint want[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
    const EGLint ctx[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3, EGL_CONTEXT_OPENGL_PROFILE_MASK,
                          EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    EGLContext c;
    if (d == EGL_NO_DISPLAY || !eglInitialize(d, &major, &minor) || !eglBindAPI(EGL_OPENGL_API) ||
        !eglChooseConfig(d, want, &config, 1, &n) || n < 1 ||
        !(c = eglCreateContext(d, config, EGL_NO_CONTEXT, ctx)) || !eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, c)) {
        fprintf(stderr, "bench_llvmpipe: no EGL surfaceless OpenGL 3.3 context (error 0x%x)\n", eglGetError());
        exit(3);
    }
    if (!strstr((const char *)glGetString(GL_RENDERER), "llvmpipe")) {
        fprintf(stderr, "bench_llvmpipe: the GL renderer is %s, not llvmpipe\n", glGetString(GL_RENDERER));
        exit(3);
    }
}

static GLuint depth_target(GLsizei w, GLsizei h, GLuint *tex)
{
    GLuint fbo;
    glGenTextures(1, tex);
    glBindTexture(GL_TEXTURE_2D, *tex);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_DEPTH_COMPONENT32F, w, h, 0, GL_DEPTH_COMPONENT, GL_FLOAT, NULL);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_MODE, GL_COMPARE_REF_TO_TEXTURE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_FUNC, GL_LEQUAL);
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_TEXTURE_2D, *tex, 0);
    return fbo;
}

static void gl_setup(gl_peer *g, const geometry *geo, const double sun[3], sn_vec3 lo, sn_vec3 hi)
{
    GLuint vbo, ibo, tex, rb;
    glGenVertexArrays(1, &g->vao);
    glBindVertexArray(g->vao);
    glGenBuffers(1, &vbo);
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(geo->n_v * 3 * sizeof(float)), geo->v, GL_STATIC_DRAW);
    glGenBuffers(1, &ibo);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ibo);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)(geo->n_idx * sizeof(uint32_t)), geo->idx, GL_STATIC_DRAW);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 0, NULL);
    glEnableVertexAttribArray(0);
    g->n_idx = (GLsizei)geo->n_idx;
    g->prog_depth = program(VS, FS_DEPTH);
    g->prog_lit = program(VS, FS_LIT);
    g->fbo_depth = depth_target(W, H, &tex);
    g->fbo_shadow = depth_target(SHADOW, SHADOW, &g->shadow_tex);
    glGenFramebuffers(1, &g->fbo_rgb);
    glBindFramebuffer(GL_FRAMEBUFFER, g->fbo_rgb);
    glGenRenderbuffers(1, &rb);
    glBindRenderbuffer(GL_RENDERBUFFER, rb);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, W, H);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb);
    glGenRenderbuffers(1, &rb);
    glBindRenderbuffer(GL_RENDERBUFFER, rb);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, W, H);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, rb);
    glEnable(GL_DEPTH_TEST);
    glEnable(GL_CULL_FACE);
    glCullFace(GL_BACK);
    glFrontFace(GL_CW); /* sensim's outward winding seen through the axis swap above */
    /* the sun's orthographic view of the spheres' box */
    sn_vec3 sd = sn_v3(-sun[0], -sun[1], -sun[2]), ref = fabs(sd.z) < 0.9 ? sn_v3(0, 0, 1) : sn_v3(1, 0, 0);
    sn_vec3 su = sn_v3_norm(sn_v3_cross(ref, sd)), sv = sn_v3_cross(sd, su), c = sn_v3_scale(sn_v3_add(lo, hi), 0.5);
    double rad = 0.5 * sn_v3_len(sn_v3_sub(hi, lo));
    const sn_vec3 ax[3] = {su, sv, sn_v3_scale(sd, -1)};
    memset(g->light, 0, sizeof g->light);
    for (int r = 0; r < 3; r++) {
        g->light[0 + r] = (float)(ax[r].x / rad), g->light[4 + r] = (float)(ax[r].y / rad);
        g->light[8 + r] = (float)(ax[r].z / rad), g->light[12 + r] = (float)(-sn_v3_dot(ax[r], c) / rad);
    }
    g->light[15] = 1;
    for (int k = 0; k < 3; k++)
        g->sun[k] = (float)sun[k];
}

static void gl_depth_frame(const gl_peer *g, int frame, float *out)
{
    float mvp[16];
    sn_camera cam = camera(frame);
    camera_matrix(&cam, mvp);
    glBindFramebuffer(GL_FRAMEBUFFER, g->fbo_depth);
    glViewport(0, 0, W, H);
    glClear(GL_DEPTH_BUFFER_BIT);
    glUseProgram(g->prog_depth);
    glUniformMatrix4fv(glGetUniformLocation(g->prog_depth, "mvp"), 1, GL_FALSE, mvp);
    glDrawElements(GL_TRIANGLES, g->n_idx, GL_UNSIGNED_INT, NULL);
    glReadPixels(0, 0, W, H, GL_DEPTH_COMPONENT, GL_FLOAT, out);
}

static void gl_rgb_frame(const gl_peer *g, int frame, uint8_t *out)
{
    float mvp[16];
    sn_camera cam = camera(frame);
    camera_matrix(&cam, mvp);
    glBindFramebuffer(GL_FRAMEBUFFER, g->fbo_shadow);
    glViewport(0, 0, SHADOW, SHADOW);
    glClear(GL_DEPTH_BUFFER_BIT);
    glDisable(GL_CULL_FACE); /* casters either way round, as sensim's shadow map */
    glUseProgram(g->prog_depth);
    glUniformMatrix4fv(glGetUniformLocation(g->prog_depth, "mvp"), 1, GL_FALSE, g->light);
    glDrawElements(GL_TRIANGLES, g->n_idx, GL_UNSIGNED_INT, NULL);
    glEnable(GL_CULL_FACE);
    glBindFramebuffer(GL_FRAMEBUFFER, g->fbo_rgb);
    glViewport(0, 0, W, H);
    glClearColor(0.6f, 0.75f, 0.92f, 1);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glUseProgram(g->prog_lit);
    glUniformMatrix4fv(glGetUniformLocation(g->prog_lit, "mvp"), 1, GL_FALSE, mvp);
    glUniformMatrix4fv(glGetUniformLocation(g->prog_lit, "light"), 1, GL_FALSE, g->light);
    glUniform3fv(glGetUniformLocation(g->prog_lit, "sun"), 1, g->sun);
    glUniform1i(glGetUniformLocation(g->prog_lit, "sm"), 0);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, g->shadow_tex);
    glDrawElements(GL_TRIANGLES, g->n_idx, GL_UNSIGNED_INT, NULL);
    glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, out);
}

/* In a child process with LP_NUM_THREADS = threads: llvmpipe's best ms per depth frame and
** per rgb frame, then the CPU ms of each, and its depth image of frame 0 (window depth, bottom
** row first). */
static void gl_measure(const geometry *geo, const double sun[3], sn_vec3 lo, sn_vec3 hi, int threads, double ms[4],
                       float *depth)
{
    int fd[2];
    if (pipe(fd)) {
        perror("bench_llvmpipe: pipe");
        exit(1);
    }
    pid_t pid = fork();
    if (pid == 0) {
        char n[16];
        snprintf(n, sizeof n, "%d", threads);
        setenv("LP_NUM_THREADS", n, 1);
        gl_context();
        gl_peer g;
        gl_setup(&g, geo, sun, lo, hi);
        uint8_t *rgb = malloc((size_t)W * H * 4);
        int f = 0;
        gl_depth_frame(&g, 0, depth), gl_rgb_frame(&g, 0, rgb); /* warm up: shaders compile at first draw */
        double res[4];
        res[0] = MEASURE(gl_depth_frame(&g, ++f, depth), &res[2]);
        res[1] = MEASURE(gl_rgb_frame(&g, ++f, rgb), &res[3]);
        gl_depth_frame(&g, 0, depth);
        if (write(fd[1], res, sizeof res) != sizeof res ||
            write(fd[1], depth, (size_t)W * H * sizeof *depth) != (ssize_t)((size_t)W * H * sizeof *depth))
            _exit(1);
        _exit(0);
    }
    close(fd[1]);
    size_t want = sizeof(double[4]) + (size_t)W * H * sizeof *depth, got = 0;
    char *buf = malloc(want);
    for (ssize_t k; got < want && (k = read(fd[0], buf + got, want - got)) > 0;)
        got += (size_t)k;
    close(fd[0]);
    int status;
    waitpid(pid, &status, 0);
    if (got < want) {
        fprintf(stderr, "bench_llvmpipe: the llvmpipe child failed (status %d)\n", status);
        exit(WIFEXITED(status) && WEXITSTATUS(status) == 3 ? 77 : 1);
    }
    memcpy(ms, buf, sizeof(double[4]));
    memcpy(depth, buf + sizeof(double[4]), (size_t)W * H * sizeof *depth);
    free(buf);
}

/* ---- sensim ---- */

static void sn_frame(sn_renderer *r, sn_engine *e, sn_lighting *light, int frame, float *depth, uint8_t *bgra)
{
    sn_camera cam = camera(frame);
    sn_image img = {sizeof img, depth, bgra, NULL, NULL, 1};
    sn_error err = {0};
    must(sn_render(r, &e->world, 1.0, light, &cam, &img, &err), &err);
}

/* The share of pixels where sensim's planar depth and llvmpipe's (window depth, linearised) agree
** within 1 %, among those where either sees a sphere. */
static double agreement(const float *sn, const float *gl)
{
    const double n = 0.1, f = 1000;
    size_t seen = 0, same = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            double zw = gl[(size_t)(H - 1 - y) * W + x], zn = 2 * zw - 1;
            double d = zw >= 1 ? f : 2 * f * n / (f + n - zn * (f - n)), s = sn[(size_t)y * W + x];
            if (d >= f && s >= f)
                continue;
            seen++;
            same += fabs(d - s) <= 0.01 * s;
        }
    return seen ? (double)same / seen : 1;
}

static void bench_size(const char *tmp, int n_spheres)
{
    sn_engine *e = spheres(tmp, n_spheres);
    geometry geo = gather(e);
    sn_vec3 lo = sn_v3(1e30, 1e30, 1e30), hi = sn_v3(-1e30, -1e30, -1e30);
    for (size_t i = 0; i < geo.n_v; i++) {
        const float *p = geo.v + 3 * i;
        lo = sn_v3(fmin(lo.x, p[0]), fmin(lo.y, p[1]), fmin(lo.z, p[2]));
        hi = sn_v3(fmax(hi.x, p[0]), fmax(hi.y, p[1]), fmax(hi.z, p[2]));
    }
    sn_lighting light = e->lighting;
    light.weather.sun_altitude_angle = 50, light.weather.sun_azimuth_angle = 135;
    double sun[3] = {cos(50 * SN_DEG) * cos(135 * SN_DEG), cos(50 * SN_DEG) * sin(135 * SN_DEG), sin(50 * SN_DEG)};
    float *depth = malloc((size_t)W * H * sizeof *depth), *gl_depth = malloc((size_t)W * H * sizeof *gl_depth);
    uint8_t *bgra = malloc((size_t)W * H * 4);
    size_t n_tris = geo.n_idx / 3;
    for (int threads = 1; threads <= 2; threads++) {
        double gl[4], sn[2], sn_cpu[2];
        gl_measure(&geo, sun, lo, hi, threads, gl, gl_depth);
        sn_renderer *r = sn_renderer_create(threads);
        int f = 0;
        sn_frame(r, e, &light, 0, depth, NULL);
        sn_render_profile p[4];
        sn_renderer_profile(r, &p[0]);
        sn[0] = MEASURE(sn_frame(r, e, &light, ++f, depth, NULL), &sn_cpu[0]);
        sn_renderer_profile(r, &p[1]);
        sn_frame(r, e, &light, 0, depth, NULL);
        double agree = agreement(depth, gl_depth);
        sn_frame(r, e, &light, 0, NULL, bgra);
        sn_renderer_profile(r, &p[2]);
        sn[1] = MEASURE(sn_frame(r, e, &light, ++f, NULL, bgra), &sn_cpu[1]);
        sn_renderer_profile(r, &p[3]);
        char share[2][96];
        for (int k = 0; k < 2; k++) {
            const sn_render_profile *a = &p[2 * k], *b = &p[2 * k + 1];
            double q = b->queue_ms - a->queue_ms, su = b->setup_ms - a->setup_ms, sh = b->shadow_ms - a->shadow_ms;
            double d = b->draw_ms - a->draw_ms, all = q + su + sh + d;
            /* one thread draws each triangle as it is set up (render.h): setup holds the raster */
            snprintf(share[k], sizeof share[k], threads > 1 ? "setup %.0f%% shadow %.0f%% draw %.0f%%"
                                                            : "setup+raster %.0f%% shadow %.0f%% shade %.0f%%",
                     100 * (q + su) / all, 100 * sh / all, 100 * d / all);
        }
        printf("llvmpipe peer %8zu triangles %d thread%s: depth %7.2f ms vs %7.2f ms ratio %.2f x (CPU %7.2f vs %7.2f "
               "ms: %.2f x) | rgb+shadow %7.2f ms vs %7.2f ms ratio %.2f x (CPU %7.2f vs %7.2f ms: %.2f x) | sensim's "
               "profile: depth %s; rgb %s | depths agree on %.1f%% of pixels\n",
               n_tris, threads, threads > 1 ? "s" : " ", sn[0], gl[0], sn[0] / gl[0], sn_cpu[0], gl[2], sn_cpu[0] / gl[2],
               sn[1], gl[1], sn[1] / gl[1], sn_cpu[1], gl[3], sn_cpu[1] / gl[3], share[0], share[1], 100 * agree);
        fflush(stdout);
        sn_renderer_destroy(r);
    }
    free(depth), free(gl_depth), free(bgra), free(geo.v), free(geo.idx);
    sn_engine_destroy(e);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return fprintf(stderr, "usage: bench_llvmpipe TMP\n"), 2;
    bench_size(argv[1], 115);  /* 110 400 triangles */
    bench_size(argv[1], 1250); /* 1.2 M */
    const char *big = getenv("SN_BENCH_5M");
    if (big && *big == '1')
        bench_size(argv[1], 5208); /* 5.0 M */
    else
        printf("llvmpipe peer 5 M triangles: skipped (SN_BENCH_5M=1 runs it)\n");
    return 0;
}
