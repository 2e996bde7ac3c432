/*
** sensim/abi.h — versions, status codes and the header every boundary struct starts with.
**
** Rule of the ABI: a struct that crosses the plugin boundary starts with sn_abi_header and
** only ever grows at its end. The host accepts abi_major == SN_ABI_MAJOR and
** abi_minor <= SN_ABI_MINOR, copies the plugin's struct into a zeroed struct of its own size,
** so members an older plugin lacks read as zero / NULL.
*/
#ifndef SENSIM_ABI_H
#define SENSIM_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SN_ABI_MAJOR 1
#define SN_ABI_MINOR 6

/* meson.build's project version, checked against it at configure time: a literal, because
** these headers are used from a source tree with no build. sn_version() gives it at run time. */
#define SN_VERSION_STRING "0.1.0"

#if defined(_WIN32)
#define SN_EXPORT __declspec(dllexport)
#else
#define SN_EXPORT __attribute__((visibility("default")))
#endif

/* Marks the embedding API that libsensim exports (sensim.h). */
#if defined(_WIN32)
#define SN_API
#else
#define SN_API __attribute__((visibility("default")))
#endif

#if defined(__GNUC__)
#define SN_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define SN_PRINTF(fmt, args)
#endif

/* First member of every struct that crosses the plugin boundary. Frozen forever. */
typedef struct sn_abi_header {
    uint32_t struct_size; /* sizeof(enclosing struct) when the plugin was built */
    uint16_t abi_major;   /* SN_ABI_MAJOR when the plugin was built */
    uint16_t abi_minor;   /* SN_ABI_MINOR when the plugin was built */
} sn_abi_header;

/* Fills an sn_abi_header for a struct of type T, e.g. .hdr = SN_ABI_HEADER(sn_sensor_class). */
#define SN_ABI_HEADER(T) {(uint32_t)sizeof(T), SN_ABI_MAJOR, SN_ABI_MINOR}

/* Every callback and API function that can fail returns one of these. */
typedef enum sn_status {
    SN_OK = 0,
    SN_E_INVALID = -1,     /* bad argument or bad input (scene, attribute, file) */
    SN_E_RANGE = -2,       /* a value outside its allowed range */
    SN_E_NOMEM = -3,       /* an allocation failed */
    SN_E_STATE = -4,       /* called at the wrong time */
    SN_E_IO = -5,          /* a file could not be read or written */
    SN_E_UNSUPPORTED = -6, /* the host or plugin lacks this feature */
    SN_E_NOT_FOUND = -7,   /* no such actor, sensor, blueprint or method */
    SN_E_PLUGIN = -8,      /* a plugin refused or failed */
    SN_E_PHYSICS = -9      /* the physics engine reported an error */
} sn_status;

/* Severity of a log line: a plugin's host->log, or an engine's log callback (sensim.h). */
typedef enum sn_log_level {
    SN_LOG_DEBUG = 0,
    SN_LOG_INFO = 1,
    SN_LOG_WARN = 2,
    SN_LOG_ERROR = 3
} sn_log_level;

#endif
