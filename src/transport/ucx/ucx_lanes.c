/* What UCX's lanes leave to the CPUs, read once at init off real endpoints
 * (ucp_ep_print_info), for two decisions:
 *  - the progress thread (ucx_progress.c): without an RMA lane or an AMO
 *    lane UCX emulates them with active messages that the target's CPU
 *    executes, so the target must progress while it computes;
 *  - the atomicity domain: where no lane does atomics in a device, every
 *    UCX atomic into a PE is a CPU atomic instruction (the target's, in
 *    UCX's emulation, or the initiator's on shared memory), coherent with
 *    the CPU atomics Shoal applies to mapped words.  Then core may update
 *    this PE's own words and its node's with the CPU, instead of a network
 *    round trip (to itself, over tcp: through the kernel twice).
 *
 * A lane line ends with the lane's roles:
 *   "lane[0]:  1:tcp/lo.0 md[0] -> md[0]/tcp/sysdev[255] am am_bw#0 wireup"
 * (UCX 1.13); from some release on (1.22 has it) a "seg <size>" pair comes
 * before the roles:  "... -> md[0]/tcp/sysdev[255] seg 4294967295 rma_bw#0 am". */
#include <stdlib.h>
#include <string.h>

#include "boot/boot.h"
#include "transport/ucx/ucx_internal.h"

struct lane_roles {
    int rma;        /* a plain "rma" lane */
    int amo;        /* an "amo" lane */
    int device_amo; /* ... of a transport whose atomics are not the CPU's */
};

/* Transports whose atomics are CPU instructions on mapped memory. */
static int cpu_atomic_tl(const char *tl, int len)
{
    static const char *const cpu[] = {"self", "posix", "sysv", "xpmem", "cma", "knem"};
    for (size_t i = 0; i < sizeof cpu / sizeof cpu[0]; i++)
        if ((int)strlen(cpu[i]) == len && !strncmp(tl, cpu[i], (size_t)len))
            return 1;
    return 0;
}

/* The roles after "sysdev[N]" into r and, by name, into roles[]. */
static void read_roles(const char *t, const char *tl, struct lane_roles *r, char *roles,
                       size_t rlen)
{
    size_t rk = 0;
    roles[0] = 0;
    while (*t) {
        t += strspn(t, " ");
        int tlen = (int)strcspn(t, " ");
        if (tlen == 0)
            break;
        if (tlen == 3 && !strncmp(t, "seg", 3)) { /* "seg <size>": not a role */
            t += tlen;
            t += strspn(t, " ");
            t += strcspn(t, " ");
            continue;
        }
        int base = (int)strcspn(t, " #");
        if (base > tlen)
            base = tlen;
        /* A plain "rma" lane: an "rma_bw" lane alone (e.g. cma, which
         * UCP_FEATURE_AM's rendezvous adds over sm) serves large
         * transfers, while small ones and atomics stay emulated. */
        if (base == 3 && !strncmp(t, "rma", 3))
            r->rma = 1;
        if (!strncmp(t, "amo", 3)) {
            r->amo = 1;
            /* "rc_mlx5/mlx5_0:1": the transport's name ends at '/'. */
            if (!cpu_atomic_tl(tl, (int)strcspn(tl, "/")))
                r->device_amo = 1;
        }
        if (rk + (size_t)base + 2 < rlen)
            rk += (size_t)snprintf(roles + rk, rlen - rk, "%s%.*s", rk ? " " : "", base, t);
        t += tlen;
    }
}

/* Reads ep's lanes into *r, and "tl/dev [roles], ..." into note. */
static void read_lanes(ucp_ep_h ep, struct lane_roles *r, char *note, size_t notelen)
{
    char *buf = NULL;
    size_t len = 0, k = 0;
    note[0] = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) {
        r->device_amo = 1; /* unknown: as if the device did them */
        return;
    }
    ucp_ep_print_info(ep, m);
    fclose(m);
    char *save = NULL;
    for (char *line = buf ? strtok_r(buf, "\n", &save) : NULL; line;
         line = strtok_r(NULL, "\n", &save)) {
        char *l = strstr(line, "lane[");
        char *c = l ? strchr(l, ':') : NULL;
        char *s = c ? strstr(c, "sysdev[") : NULL;
        if (!s || !(s = strchr(s, ']')))
            continue;
        /* The transport/device: "1:tcp/lo.0" -> "tcp/lo.0". */
        c++;
        c += strspn(c, " ");
        char *colon = strchr(c, ':');
        if (colon && colon < strchr(c, ' '))
            c = colon + 1;
        int tl_len = (int)strcspn(c, " ");
        char roles[96];
        read_roles(s + 1, c, r, roles, sizeof roles);
        if (k + (size_t)tl_len + strlen(roles) + 6 < notelen)
            k += (size_t)snprintf(note + k, notelen - k, "%s%.*s [%s]", k ? ", " : "", tl_len, c,
                                  roles[0] ? roles : "-");
    }
    if (!buf)
        r->device_amo = 1;
    free(buf);
}

/* The probes stay open until finalize: closed by force at once, a probe
 * reset the tcp connection that the peer's endpoints to this PE on its
 * target worker share with it, and the peer took that for a dead PE
 * ("Endpoint timeout" at PE 0 under srun across two hosts, 5 runs of 20). */
static ucp_ep_h probes[2];
static int n_probes;

void ucx_lanes_fini(void)
{
    for (int i = 0; i < n_probes; i++)
        ucx_ep_close_force(probes[i], ucx_g.target);
    n_probes = 0;
}

/* The lanes of an endpoint from the target worker to `pe`, noted for
 * shmem-info under `label`.  Returns 0, or -1 if no endpoint came up. */
static int probe(int pe, const char *label, struct lane_roles *r)
{
    memset(r, 0, sizeof *r);
    ucp_ep_h ep = ucx_probe_ep(ucx_g.target, pe);
    if (!ep)
        return -1;
    char note[200];
    read_lanes(ep, r, note, sizeof note);
    if (n_probes < 2)
        probes[n_probes++] = ep;
    else
        ucx_ep_close_force(ep, ucx_g.target);
    size_t k = strlen(ucx_g.tls_note);
    if (k < sizeof ucx_g.tls_note)
        snprintf(ucx_g.tls_note + k, sizeof ucx_g.tls_note - k, "%s%s (%s)", k ? "; " : "", note,
                 label);
    return 0;
}

/* The first peer (after this PE) that is, or is not, mapped; -1 if none. */
static int first_peer(int mapped)
{
    for (int k = 1; k < ucx_g.n_pes; k++) {
        int pe = (ucx_g.me + k) % ucx_g.n_pes;
        if (!ucx_g.hooks->mapped(pe) == !mapped)
            return pe;
    }
    return -1;
}

int ucx_lanes_decide(void)
{
    ucx_g.tls_note[0] = 0;
    ucx_g.sw_emulated = 0;
    /* The peers this PE reaches through UCX: one of the others. */
    struct lane_roles r;
    int far = first_peer(0), device = 1;
    if (far >= 0 && probe(far, "to other PEs", &r) == 0) {
        device = r.device_amo;
        ucx_g.sw_emulated = !r.rma || !r.amo;
    } else if (far >= 0) {
        ucx_g.sw_emulated = 1;
    }
    /* One domain for the job: a peer whose lanes do atomics in a device
     * (or that could not tell) makes every PE send its AMOs through UCX. */
    /* And collectives' signals go as messages only where every PE can
     * take them (ucx_signal.c). */
    int *all = calloc((size_t)ucx_g.n_pes, sizeof *all);
    int mine = device | (ucx_g.tag_here ? 0 : 2);
    if (!all || ucx_g.boot->allgather(&mine, all, sizeof mine) < 0) {
        free(all);
        return -1;
    }
    int any_device = 0, any_amo_signals = 0;
    for (int pe = 0; pe < ucx_g.n_pes; pe++) {
        any_device |= all[pe] & 1;
        any_amo_signals |= all[pe] & 2;
    }
    free(all);
    ucx_g.signal_msgs = !any_device && !any_amo_signals;
    ucx_g.coll_msgs = !any_amo_signals;
    ucx_g.amo_via_net = ucx_cfg.atomics_all || (!ucx_g.cpu_atomics && any_device);
    /* AMOs to this node through UCX too: are they emulated here? */
    int near = ucx_g.amo_via_net ? first_peer(1) : -1;
    if (near >= 0) {
        if (probe(near, "on this node", &r) == 0)
            ucx_g.sw_emulated |= !r.rma || !r.amo;
        else
            ucx_g.sw_emulated = 1;
    }
    return 0;
}
