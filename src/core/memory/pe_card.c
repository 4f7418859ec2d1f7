/* A PE's card (pe_card.h): host, node identity, program identity. */
#include "core/memory/pe_card.h"

#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static uint64_t fnv_bytes(uint64_t h, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

#define FNV_INIT 1469598103934665603ull

/* A word at a time: a program's text may be tens of MiB. */
static uint64_t digest_words(uint64_t h, const unsigned char *p, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 1099511628211ull;
        h ^= h >> 29;
    }
    return fnv_bytes(h, p + i, n - i);
}

struct image_find {
    uint64_t digest;
    uint32_t kind;
};

/* The GNU build id note of one PT_NOTE segment, or 0. */
static int build_id(const unsigned char *p, size_t len, uint64_t *digest)
{
    size_t off = 0;
    while (off + sizeof(ElfW(Nhdr)) <= len) {
        ElfW(Nhdr) nh;
        memcpy(&nh, p + off, sizeof nh);
        size_t name_at = off + sizeof nh;
        size_t desc_at = name_at + ((nh.n_namesz + 3) & ~3u);
        size_t next = desc_at + ((nh.n_descsz + 3) & ~3u);
        if (next > len)
            return 0;
        if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && !memcmp(p + name_at, "GNU", 4)) {
            *digest = fnv_bytes(FNV_INIT, p + desc_at, nh.n_descsz);
            return 1;
        }
        off = next;
    }
    return 0;
}

static int find_image(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct image_find *f = arg;
    (void)size;
    /* The first object reported is the main program. */
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_NOTE &&
            build_id((const unsigned char *)(info->dlpi_addr + ph->p_vaddr), ph->p_memsz,
                     &f->digest)) {
            f->kind = PE_IMAGE_BUILD_ID;
            return 1;
        }
    }
    /* No build id (linked with --build-id=none): the read-only segments,
     * which relocation never writes (text, constants). */
    uint64_t h = FNV_INIT;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && !(ph->p_flags & PF_W))
            h = digest_words(h, (const unsigned char *)(info->dlpi_addr + ph->p_vaddr),
                             ph->p_filesz);
    }
    f->digest = h;
    f->kind = PE_IMAGE_SEGMENTS;
    return 1;
}

static uint64_t ns_inode(const char *which)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/ns/%s", which);
    struct stat st;
    return stat(path, &st) == 0 ? (uint64_t)st.st_ino : 0;
}

void pe_card_fill(struct pe_card *c, size_t heap_size, size_t data_size,
                  const struct pe_reach *reach)
{
    memset(c, 0, sizeof *c);
    gethostname(c->host, sizeof c->host - 1);
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(c->boot_id, sizeof c->boot_id, f))
            c->boot_id[0] = 0;
        fclose(f);
    }
    c->net_ns = ns_inode("net");
    c->ipc_ns = ns_inode("ipc");
    c->pid_ns = ns_inode("pid");
    c->pid = getpid();
    c->heap_size = heap_size;
    c->data_size = data_size;
    struct image_find img = {0, 0};
    dl_iterate_phdr(find_image, &img);
    c->image = img.digest;
    c->image_kind = img.kind;
    if (reach)
        c->reach = *reach;
}

int pe_card_same_machine(const struct pe_card *a, const struct pe_card *b)
{
    /* Without a boot id (no /proc), the host name is all there is. */
    if (!a->boot_id[0] || !b->boot_id[0])
        return !strcmp(a->host, b->host);
    return !strcmp(a->boot_id, b->boot_id);
}

int pe_card_same_net(const struct pe_card *a, const struct pe_card *b)
{
    return pe_card_same_machine(a, b) && a->net_ns == b->net_ns;
}

int pe_card_same_node(const struct pe_card *a, const struct pe_card *b)
{
    return pe_card_same_machine(a, b) && a->net_ns == b->net_ns && a->ipc_ns == b->ipc_ns;
}

int pe_cards_check(const struct pe_card *cards, int me, int n, char *err, size_t errlen)
{
    const struct pe_card *m = &cards[me];
    for (int pe = 0; pe < n; pe++) {
        const struct pe_card *c = &cards[pe];
        if (c->heap_size != m->heap_size) {
            snprintf(err, errlen,
                     "PE %d on host %s has a symmetric heap of %llu bytes and PE %d on host %s "
                     "of %llu bytes: every PE must see the same SHMEM_SYMMETRIC_SIZE",
                     pe, c->host, (unsigned long long)c->heap_size, me, m->host,
                     (unsigned long long)m->heap_size);
            return -1;
        }
        if (c->image != m->image || c->image_kind != m->image_kind ||
            c->data_size != m->data_size) {
            snprintf(err, errlen,
                     "PE %d on host %s (pid %lld) runs another program than PE %d on host %s "
                     "(pid %lld): its %s differs (%016llx against %016llx, static data %llu "
                     "against %llu bytes); all PEs must run one program, whose static data is "
                     "symmetric (identical copies of it on each host are fine)",
                     pe, c->host, (long long)c->pid, me, m->host, (long long)m->pid,
                     c->image_kind == m->image_kind && c->image_kind == PE_IMAGE_BUILD_ID
                         ? "ELF build id"
                         : "image (build id or read-only segments)",
                     (unsigned long long)c->image, (unsigned long long)m->image,
                     (unsigned long long)c->data_size, (unsigned long long)m->data_size);
            return -1;
        }
    }
    return 0;
}
