/* video.h — `sensim convert STREAM --video OUT.mp4 [--gif OUT.gif]`: a picture stream (any
** camera, DVS event frames, optical flow colours, lidar and radar bird's-eye views: the
** pictures `sensim convert --out` saves as PNG, through the same converters) as an H.264 MP4
** and/or an animated GIF preview. Built on the public stream reader (sensim.h).
**
** Frame rate: the median interval between the messages' timestamps (the sensor's tick); each
** frame is shown at its own timestamp. Odd sizes are padded to even for H.264 by repeating
** the last column / row. The GIF is scaled to at most SN_GIF_MAX_WIDTH pixels wide, at most
** 50 frames per second (GIF's 1/100 s clock; closer frames are dropped). */
#ifndef SN_CLI_VIDEO_H
#define SN_CLI_VIDEO_H

#include <sensim/sensim.h>

#define SN_GIF_MAX_WIDTH 480

typedef struct sn_video_job {
    const char *stream;        /* the stream file */
    const char *mp4, *gif;     /* outputs (either may be NULL, not both) */
    sn_color_converter conv;
    bool overwrite;            /* replace existing files (else an existing one is refused) */
} sn_video_job;

typedef struct sn_video_result {
    size_t frames;             /* pictures in the stream (the MP4's frame count) */
    size_t gif_frames;
    uint32_t width, height;    /* the stream's pictures */
    int rate_num, rate_den;    /* the frame rate written */
    bool input_error;          /* the failure was the input's (exit 2), not the writing's (exit 1) */
} sn_video_result;

sn_status sn_cli_video(const sn_video_job *job, sn_video_result *res, sn_error *err);

/* The command: runs the job, prints what was written or the error line; the exit status. */
int sn_cli_convert_video(const char *stream, const char *mp4, const char *gif, sn_color_converter conv, bool overwrite);

#endif
