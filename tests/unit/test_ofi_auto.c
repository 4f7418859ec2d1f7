/* SHOAL_TRANSPORTS=auto's rule over libfabric's providers
 * (transport/ofi/ofi_auto_rule.c), fed the lists the fabrics' machines
 * give (fi_getinfo's prov_name, in its order), which no machine here has. */
#include <stdio.h>
#include <string.h>

#include "transport/net.h"
#include "transport/ofi/ofi_auto.h"

static int failures;

static void expect(const char *const *provs, size_t n, int fit, const char *why_has)
{
    char why[200];
    const int got = ofi_auto_rule(provs, n, why, sizeof why);
    if (got != fit || !strstr(why, why_has)) {
        fprintf(stderr, "FAIL: %s...: fit %d (want %d), why '%s' (want '%s' in it)\n",
                n ? provs[0] : "(none)", got, fit, why, why_has);
        failures++;
    }
}

#define EXPECT(fit, why_has, ...)                               \
    do {                                                        \
        const char *const l_[] = {__VA_ARGS__};                 \
        expect(l_, sizeof l_ / sizeof l_[0], (fit), (why_has)); \
    } while (0)

/* FI_PROVIDER as libfabric 1.17 applied it to Debian's providers (each
 * value's list measured with fi_getinfo, FI_RMA|FI_ATOMIC, FI_EP_RDM). */
static void filters(void)
{
    static const char *const provs[] = {"tcp;ofi_rxm", "net", "net;ofi_rxm",
                                        "udp;ofi_rxd", "shm", "sockets"};
    static const struct {
        const char *filter, *admitted; /* by index into provs: "1" for net... */
    } cases[] = {
        {"tcp", "0"},
        {"net", "12"},
        {"shm", "4"},
        {"tcp;ofi_rxm", "0"},
        {"^tcp", "12345"},
        {"sockets,shm", "45"},
        {"ofi_rxm", ""},
        {"udp", "3"},
        {"udp;ofi_rxd", "3"},
        {"^net,tcp", "345"},
        {"TCP", "0"},
        {"rxm", ""},
        {"", ""},
        {"bogus", ""},
        {"^ofi_rxm", "1345"},
        {"^ofi_rxm,sockets,shm,udp,net,psm2,psm,ofi_rxd,ofi_mrail", ""},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char got[8] = "";
        size_t n = 0;
        for (size_t i = 0; i < sizeof provs / sizeof provs[0]; i++)
            if (ofi_fi_provider_allows(cases[c].filter, provs[i]))
                got[n++] = (char)('0' + i);
        if (strcmp(got, cases[c].admitted)) {
            fprintf(stderr, "FAIL: FI_PROVIDER='%s' admits '%s', libfabric '%s'\n", cases[c].filter,
                    got, cases[c].admitted);
            failures++;
        }
    }
}

int main(void)
{
    /* Debian 12 without fabric hardware (docs: what is tested here). */
    EXPECT(SHOAL_FIT_GENERIC,
           "no fabric provider, only tcp;ofi_rxm, net;ofi_rxm, net, udp;ofi_rxd, shm, sockets",
           "tcp;ofi_rxm", "tcp;ofi_rxm", "net;ofi_rxm", "net", "udp;ofi_rxd", "shm", "sockets",
           "sockets");
    /* Slingshot: cxi, with shm and tcp beside it. */
    EXPECT(SHOAL_FIT_NATIVE, "libfabric offers cxi, a fabric's own provider", "cxi", "cxi", "shm",
           "tcp;ofi_rxm");
    /* A native provider after generic ones still wins. */
    EXPECT(SHOAL_FIT_NATIVE, "offers efa,", "shm", "tcp;ofi_rxm", "efa");
    EXPECT(SHOAL_FIT_NATIVE, "offers opx,", "opx", "psm3");
    EXPECT(SHOAL_FIT_NATIVE, "offers psm3,", "tcp;ofi_rxm", "psm3");
    EXPECT(SHOAL_FIT_NATIVE, "offers psm2,", "psm2", "verbs;ofi_rxm");
    /* Native before verbs, whatever the order. */
    EXPECT(SHOAL_FIT_NATIVE, "offers efa,", "verbs;ofi_rxm", "efa");
    /* verbs ties with a UCX that finds the devices (net_select.c). */
    EXPECT(SHOAL_FIT_DEVICE, "libfabric offers verbs;ofi_rxm", "verbs;ofi_rxm", "tcp;ofi_rxm",
           "shm");
    /* Names that only begin like a native one are not it. */
    EXPECT(SHOAL_FIT_GENERIC, "only cxip, efax;ofi_rxm", "cxip", "efax;ofi_rxm");
    /* A utility provider over a native core counts as the core's. */
    EXPECT(SHOAL_FIT_NATIVE, "offers psm3;ofi_rxd,", "psm3;ofi_rxd");
    expect(NULL, 0, SHOAL_FIT_GENERIC, "no provider with RMA and atomics");
    filters();
    if (failures)
        return 1;
    printf("ofi_auto rule and FI_PROVIDER filter: all cases pass\n");
    return 0;
}
