/* render_share.h — one geometry render for cameras that ask for the same picture in one frame.
** A CARLA rig mounts its depth and semantic cameras at one pose with one size and field of view:
** both renders rasterise the same triangles into the same depth and id buffers and differ only in
** which planes they keep. Here the first such render of a phase keeps the planes the requests
** after it asked for (its own other planes go straight into its image: vec62), and the
** next request for the very same camera at the same moment gets its planes copied: the same bytes
** the renderer would have written (the planes do not depend on which others are asked for;
** test_render_share checks it), for one copy instead of a render.
**
** Which cameras to keep for is learnt: a request that matched the one before it marks its camera's
** size, lens and clips as shared, and from the next phase on the first render of such a camera
** keeps every plane its group asked for. A camera nobody shares costs nothing more. Colour renders
** (bgra) and anti-aliased ones are never shared (their samples differ by design).
** Valid for one phase (run_phase clears it): the world does not change while sensors tick. */
#ifndef SN_SIM_RENDER_SHARE_H
#define SN_SIM_RENDER_SHARE_H

#include "../render/render.h"

#include <sensim/host.h>

typedef struct sn_render_share sn_render_share;

/* Renders cam at alpha into out's planes through r, or copies them from the phase's kept render
** when one matches. *share is made on first use (NULL when out of memory: then it renders as
** usual); sn_render_share_free frees it. err as sn_render's. */
sn_status sn_render_shared(sn_render_share **share, sn_renderer *r, const sn_world *w, double alpha,
                           const sn_lighting *light, const sn_camera *cam, const sn_image *out, sn_error *err);
/* Forgets the kept render (a new phase: the world may have moved); learnt groups stay. */
void sn_render_share_phase(sn_render_share *s);
/* Renders served by a copy since the share was made: for tests. */
uint64_t sn_render_share_hits(const sn_render_share *s);
/* Bytes copied out of kept planes since the share was made: for tests. */
uint64_t sn_render_share_copied(const sn_render_share *s);
void sn_render_share_free(sn_render_share *s);

#endif
