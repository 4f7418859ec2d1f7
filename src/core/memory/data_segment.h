/* The program's static data as a shareable segment (data_segment.c). */
#ifndef SHOAL_CORE_DATA_SEGMENT_H
#define SHOAL_CORE_DATA_SEGMENT_H
#include <stddef.h>

struct shoal_data_segment {
    char *start;      /* page-aligned start of the moved range, NULL if none */
    size_t size;      /* page multiple */
    int fd;           /* memfd holding it, -1 if none */
    const char *note; /* why there is none */
};
const struct shoal_data_segment *shoal_data_segment(void);
#endif
