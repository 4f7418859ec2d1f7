/* UCX's start-up patches without their wait.
 *
 * UCX from 1.21 on patches eight libc functions (mmap, munmap, mremap,
 * madvise, shmat, shmdt, brk, sbrk) while libucs loads, so that it sees
 * memory go away (its registration and memory-type caches), and after each
 * patch it waits UCX_MEM_BISTRO_GRACE_DURATION (50 ms) for threads that
 * might be running the bytes it replaced: 0.4 s per process before main
 * (1.16 to 1.20: 5 ms each, not adjustable; 1.13 patched with no wait).
 * A program whose executable links Shoal or UCX itself (DT_NEEDED) loads
 * UCX before any code of its own runs and before any library that could
 * start a thread, so no other thread exists and the wait guards nothing.
 * oshrun starts such a program with the grace at 0, unless the user set
 * it, and says so in SHOAL_OSHRUN_UCX_GRACE; Shoal then gives UCX its grace
 * back before ucp_init, for the patches UCX may apply later, when the
 * program's threads may exist (transport/ucx/ucx_startup.c).  A program
 * that loads Shoal later (dlopen, e.g. Python) keeps UCX's wait.  Only
 * where Shoal was built against a UCX that has the setting: older ones
 * would warn about an unknown variable. */
#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot/boot.h"
#include "oshrun.h"

#define UCX_GRACE_VAR "UCX_MEM_BISTRO_GRACE_DURATION"
#define MAX_DYN 4096 /* dynamic entries read at most */

static int read_at(int fd, void *buf, size_t len, off_t off)
{
    return pread(fd, buf, len, off) == (ssize_t)len ? 0 : -1;
}

/* Where the address `vaddr` of a loaded segment lies in the file, or -1. */
static off_t file_offset(const Elf64_Phdr *ph, int n, Elf64_Addr vaddr)
{
    for (int i = 0; i < n; i++)
        if (ph[i].p_type == PT_LOAD && vaddr >= ph[i].p_vaddr &&
            vaddr < ph[i].p_vaddr + ph[i].p_filesz)
            return (off_t)(ph[i].p_offset + (vaddr - ph[i].p_vaddr));
    return -1;
}

static int names_ucx(const char *soname)
{
    static const char *const libs[] = {"libshoal.so", "libucp.so", "libucs.so", "libucm.so",
                                       "libuct.so"};
    for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++)
        if (!strncmp(soname, libs[i], strlen(libs[i])))
            return 1;
    return 0;
}

/* Whether one of the DT_NEEDED entries of `dyn` names Shoal or UCX. */
static int dyn_needs_ucx(int fd, const Elf64_Phdr *ph, int nph, const Elf64_Dyn *dyn, size_t n)
{
    Elf64_Addr strtab = 0;
    for (size_t i = 0; i < n && dyn[i].d_tag != DT_NULL; i++)
        if (dyn[i].d_tag == DT_STRTAB)
            strtab = dyn[i].d_un.d_ptr;
    off_t str = strtab ? file_offset(ph, nph, strtab) : -1;
    if (str < 0)
        return 0;
    for (size_t i = 0; i < n && dyn[i].d_tag != DT_NULL; i++) {
        char name[64];
        if (dyn[i].d_tag != DT_NEEDED)
            continue;
        ssize_t got = pread(fd, name, sizeof name - 1, str + (off_t)dyn[i].d_un.d_val);
        if (got <= 0)
            continue;
        name[got] = 0;
        if (names_ucx(name))
            return 1;
    }
    return 0;
}

/* Whether the 64-bit ELF executable `fd` links Shoal or UCX directly. */
static int elf_needs_ucx(int fd)
{
    Elf64_Ehdr eh;
    if (read_at(fd, &eh, sizeof eh, 0) < 0 || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
        eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr) ||
        eh.e_phnum == 0 || eh.e_phnum >= PN_XNUM)
        return 0;
    Elf64_Phdr *ph = calloc(eh.e_phnum, sizeof *ph);
    Elf64_Dyn *dyn = NULL;
    int needs = 0;
    if (!ph || read_at(fd, ph, eh.e_phnum * sizeof *ph, (off_t)eh.e_phoff) < 0)
        goto out;
    for (int i = 0; i < eh.e_phnum && !needs; i++) {
        size_t n = ph[i].p_filesz / sizeof *dyn;
        if (ph[i].p_type != PT_DYNAMIC || n == 0 || n > MAX_DYN)
            continue;
        dyn = calloc(n, sizeof *dyn);
        if (dyn && read_at(fd, dyn, n * sizeof *dyn, (off_t)ph[i].p_offset) == 0)
            needs = dyn_needs_ucx(fd, ph, eh.e_phnum, dyn, n);
        free(dyn);
        dyn = NULL;
    }
out:
    free(ph);
    return needs;
}

void ucx_start_fast(const char *path)
{
#ifdef SHOAL_UCX_GRACE_SETTING
    if (getenv(UCX_GRACE_VAR))
        return; /* the user's choice */
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    int needs = elf_needs_ucx(fd);
    close(fd);
    if (needs) {
        setenv(UCX_GRACE_VAR, "0", 1);
        setenv(SHOAL_ENV_UCX_GRACE, "1", 1);
    }
#else
    (void)path;
    (void)elf_needs_ucx;
#endif
}
