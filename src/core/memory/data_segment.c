/* Symmetric static data: the program's .data and .bss are moved onto a
 * memfd-backed shared mapping at their own addresses, in a constructor that
 * runs before main (so before any thread of the program exists), so that
 * peers on this node can map them like a heap and reach globals by load,
 * store and CPU atomics.  Only the main executable's writable PT_LOAD
 * segment is moved: the spec makes the program's globals symmetric, not
 * those of shared libraries.
 *
 * After fork() the child would share the parent's globals through the
 * MAP_SHARED mapping; a pthread_atfork handler gives the child a private
 * copy again. */
#include "core/memory/data_segment.h"

#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static struct shoal_data_segment seg = {.fd = -1};

/* Sanitizer runtimes poison the red zones between instrumented globals, and
 * an intercepted memcpy over the whole segment would report them: copy
 * with a plain loop the compiler may not turn back into memcpy. */
#if defined(__clang__)
#define SHOAL_NO_MEMCPY_IDIOM no_builtin("memcpy")
#else
#define SHOAL_NO_MEMCPY_IDIOM optimize("no-tree-loop-distribute-patterns")
#endif
__attribute__((no_sanitize("address", "thread"), SHOAL_NO_MEMCPY_IDIOM)) static void
raw_copy(void *dst, const void *src, size_t len)
{
    uint64_t *d = dst;
    const uint64_t *s = src;
    for (size_t i = 0; i < len / 8; i++)
        d[i] = s[i];
}

const struct shoal_data_segment *shoal_data_segment(void)
{
    return &seg;
}

struct phdr_find {
    uintptr_t start, end, relro_end;
    int found;
};

static int find_main(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct phdr_find *f = arg;
    (void)size;
    /* The first object reported is the main program. */
    uintptr_t rw_start = 0, rw_end = 0, relro_end = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W)) {
            uintptr_t s = info->dlpi_addr + ph->p_vaddr;
            uintptr_t e = s + ph->p_memsz;
            if (!rw_start || s < rw_start)
                rw_start = s;
            if (e > rw_end)
                rw_end = e;
        } else if (ph->p_type == PT_GNU_RELRO) {
            relro_end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
        }
    }
    f->start = rw_start;
    f->end = rw_end;
    f->relro_end = relro_end;
    f->found = rw_start != 0;
    return 1; /* stop after the main program */
}

static void privatize_in_child(void)
{
    /* Give the forked child its own copy: copy out, map anonymous private
     * memory over the range, copy back.  Runs before the child can touch
     * globals concurrently (fork children are single-threaded). */
    if (seg.fd < 0 || !seg.size)
        return;
    void *tmp = mmap(NULL, seg.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (tmp == MAP_FAILED)
        return;
    raw_copy(tmp, seg.start, seg.size);
    /* mremap moves the copy's pages over the shared mapping atomically. */
    if (mremap(tmp, seg.size, seg.size, MREMAP_MAYMOVE | MREMAP_FIXED, seg.start) == MAP_FAILED) {
        munmap(tmp, seg.size);
        return;
    }
    close(seg.fd);
    seg.fd = -1;
}

static int move_to_memfd(char *start, size_t len)
{
    int fd = memfd_create("shoal-data", MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    if (ftruncate(fd, (off_t)len) < 0)
        goto fail;
    /* Copy through a second mapping of the memfd, then map the memfd over
     * the original range in one MAP_FIXED call. */
    void *tmp = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (tmp == MAP_FAILED)
        goto fail;
    raw_copy(tmp, start, len);
    munmap(tmp, len);
    if (mmap(start, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED)
        goto fail;
    return fd;
fail:
    close(fd);
    return -1;
}

__attribute__((constructor(101))) static void shoal_data_segment_init(void)
{
    struct phdr_find f = {0};
    dl_iterate_phdr(find_main, &f);
    if (!f.found) {
        seg.note = "the program has no writable data segment";
        return;
    }
    const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t start = f.start & ~(page - 1);
    /* The RELRO part is read-only after relocation; glibc leaves the page
     * holding its end writable, so that page is the first one we take. */
    if (f.relro_end > start)
        start = f.relro_end & ~(page - 1);
    uintptr_t end = (f.end + page - 1) & ~(page - 1);
    if (end <= start) {
        seg.note = "the program's writable data segment is empty";
        return;
    }
    int fd = move_to_memfd((char *)start, end - start);
    if (fd < 0) {
        static char why[128];
        snprintf(why, sizeof why, "could not move static data to shared memory: %s",
                 strerror(errno));
        seg.note = why;
        return;
    }
    seg.start = (char *)start;
    seg.size = end - start;
    seg.fd = fd;
    pthread_atfork(NULL, NULL, privatize_in_child);
}
