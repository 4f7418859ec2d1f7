/* Registration of the symmetric segments and the exchange through the
 * bootstrap's allgather of what a peer needs to reach them: per segment
 * its key and its base, and the target endpoint's name, which goes into
 * the address vector (FI_AV_TABLE: PE n is fi_addr_t n).
 *
 * The mr_mode bits the provider kept decide: FI_MR_PROV_KEY (the key is
 * the provider's, fi_mr_key; else Shoal asks for the segment's number),
 * FI_MR_VIRT_ADDR (a remote address is the peer's base plus the offset;
 * else the offset alone), FI_MR_ENDPOINT (each region bound to the target
 * endpoint and enabled), FI_MR_ALLOCATED (the segments are mapped before
 * they are registered: nothing to do), FI_MR_LOCAL (registered for local
 * access too: the buffers in them need no other, ofi_modes.c). */
#include <stdlib.h>
#include <string.h>

#include "boot/boot.h"
#include "transport/ofi/ofi_internal.h"

#define OFI_NAME_MAX 224

/* What each PE publishes. */
struct ofi_card {
    uint64_t key[2], base[2];
    uint32_t name_len;
    char prov[36];
    unsigned char name[OFI_NAME_MAX];
};

static int reg_segment(int s, struct ofi_card *c, char *err, size_t errlen)
{
    const uint64_t mode = ofi_g.info->domain_attr->mr_mode;
    const char *what = s ? "the static data" : "the symmetric heap";
    int rc = fi_mr_reg(ofi_g.domain, (void *)ofi_g.seg_base[s], ofi_g.seg_len[s],
                       ofi_modes_seg_access(), 0, (uint64_t)s, 0, &ofi_g.mr[s], NULL);
    if (!rc && (mode & FI_MR_ENDPOINT)) {
        rc = fi_mr_bind(ofi_g.mr[s], &ofi_g.target.ep->fid, 0);
        if (!rc)
            rc = fi_mr_enable(ofi_g.mr[s]);
    }
    if (rc) {
        snprintf(err, errlen, "libfabric: registering %s (%zu bytes) failed: %s", what,
                 ofi_g.seg_len[s], ofi_strerror(-rc));
        return -1;
    }
    c->key[s] = fi_mr_key(ofi_g.mr[s]);
    if (c->key[s] == FI_KEY_NOTAVAIL) {
        snprintf(err, errlen, "libfabric: the key of %s does not fit 64 bits (FI_MR_RAW)", what);
        return -1;
    }
    c->base[s] = (mode & FI_MR_VIRT_ADDR) ? (uint64_t)ofi_g.seg_base[s] : 0;
    return 0;
}

static int my_card(struct ofi_card *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    for (int s = 0; s < 2; s++)
        if (ofi_g.seg_base[s] && ofi_g.seg_len[s] && reg_segment(s, c, err, errlen) < 0)
            return -1;
    size_t len = sizeof c->name;
    int rc = fi_getname(&ofi_g.target.ep->fid, c->name, &len);
    if (rc) {
        snprintf(err, errlen, "libfabric: fi_getname failed: %s", ofi_strerror(-rc));
        return -1;
    }
    c->name_len = (uint32_t)len;
    snprintf(c->prov, sizeof c->prov, "%s", ofi_g.info->fabric_attr->prov_name);
    return 0;
}

/* Every PE must use one provider, with names of one length. */
static int agree(const struct ofi_card *cards, char *err, size_t errlen)
{
    const struct ofi_card *me = &cards[ofi_g.me];
    for (int pe = 0; pe < ofi_g.n_pes; pe++)
        if (strcmp(cards[pe].prov, me->prov) || cards[pe].name_len != me->name_len) {
            snprintf(err, errlen,
                     "PE %d uses the libfabric provider %s and PE %d %s (addresses of %u and %u "
                     "bytes): every PE must use the same (FI_PROVIDER)",
                     ofi_g.me, me->prov, pe, cards[pe].prov, me->name_len, cards[pe].name_len);
            return -1;
        }
    return 0;
}

static int insert_names(const struct ofi_card *cards, char *err, size_t errlen)
{
    const size_t len = cards[0].name_len;
    const size_t n = (unsigned)ofi_g.n_pes;
    unsigned char *names = calloc(n, len);
    fi_addr_t *addr = calloc(n, sizeof *addr);
    int rc = -1;
    if (!names || !addr) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    for (size_t pe = 0; pe < n; pe++)
        memcpy(names + pe * len, cards[pe].name, len);
    int got = fi_av_insert(ofi_g.av, names, n, addr, 0, NULL);
    if (got != (int)n) {
        snprintf(err, errlen, "libfabric: fi_av_insert took %d of %zu addresses: %s", got, n,
                 got < 0 ? ofi_strerror(-got) : "some were refused");
        goto out;
    }
    for (size_t pe = 0; pe < n; pe++)
        if (addr[pe] != (fi_addr_t)pe) {
            snprintf(err, errlen, "libfabric: the address vector gave PE %zu the address %llu", pe,
                     (unsigned long long)addr[pe]);
            goto out;
        }
    rc = 0;
out:
    free(names);
    free(addr);
    return rc;
}

int ofi_mr_exchange(char *err, size_t errlen)
{
    const size_t n = (unsigned)ofi_g.n_pes;
    struct ofi_card mine;
    struct ofi_card *cards = calloc(n, sizeof *cards);
    ofi_g.peer_key = calloc(2 * n, sizeof *ofi_g.peer_key);
    ofi_g.peer_base = calloc(2 * n, sizeof *ofi_g.peer_base);
    int rc = -1;
    if (!cards || !ofi_g.peer_key || !ofi_g.peer_base) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if (my_card(&mine, err, errlen) < 0)
        goto out;
    if (ofi_g.boot->allgather(&mine, cards, sizeof mine) < 0) {
        snprintf(err, errlen, "bootstrap allgather of libfabric addresses and keys failed");
        goto out;
    }
    if (agree(cards, err, errlen) < 0 || insert_names(cards, err, errlen) < 0)
        goto out;
    for (size_t pe = 0; pe < n; pe++)
        for (int s = 0; s < 2; s++) {
            ofi_g.peer_key[2 * pe + s] = cards[pe].key[s];
            ofi_g.peer_base[2 * pe + s] = cards[pe].base[s];
        }
    rc = 0;
out:
    free(cards);
    return rc;
}

void ofi_mr_close(void)
{
    for (int s = 0; s < 2; s++)
        if (ofi_g.mr[s]) {
            fi_close(&ofi_g.mr[s]->fid);
            ofi_g.mr[s] = NULL;
        }
    free(ofi_g.peer_key);
    free(ofi_g.peer_base);
    ofi_g.peer_key = NULL;
    ofi_g.peer_base = NULL;
}
