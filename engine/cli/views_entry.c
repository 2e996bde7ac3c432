/* views_entry.c — the table libsensim-views.so exports (views_module.h). */
#include "report_cmd.h"
#include "video.h"
#include "views_module.h"

SN_EXPORT const sn_views_api *sn_views_module(void)
{
    static const sn_views_api api = {SN_VIEWS_ABI, sn_cli_convert_video, sn_cmd_report};
    return &api;
}
